package oidc

// Clock replaces time.Now, for tests.
var Clock = clock

// MaxFlows is the default flow store's capacity.
const MaxFlows = maxFlows
