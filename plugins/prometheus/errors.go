package prometheus

import "errors"

// errTwice is Plugin's error when a Metrics is registered again.
var errTwice = errors.New("these metrics already observe a context: make a Metrics per context to observe")
