// A piscina task that does nothing.
module.exports = (x) => x;
