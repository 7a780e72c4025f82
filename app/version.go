package app

// Version is this Burrow's version, which plugins check with Supports.
const Version = "0.6.0"
