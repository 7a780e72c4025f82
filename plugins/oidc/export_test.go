package oidc

// Clock replaces time.Now, for tests.
var Clock = clock
