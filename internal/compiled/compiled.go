// Package compiled holds what the app package compiles for a route at
// start-up and httpx reads on every request of that route: the request
// decorators the route can see and its send hooks. It is internal so that
// none of it is handed to a handler: a handler reads decorators through
// Request.Decorator and registers send hooks through the app package.
//
// Route is generic in the request and reply types only because httpx,
// which defines them, imports this package.
package compiled

import "reflect"

// Route is the compiled, read-only part of one route that httpx needs
// per request.
type Route[Req, Rep any] struct {
	// Slots maps each visible request decorator's name to its slot.
	Slots map[string]int
	// Types holds the declared type of every slot in the tree, by index.
	Types []reflect.Type
	// Initial is the value each visible decorator starts every request
	// with.
	Initial []SlotValue

	// PreSerialization hooks may replace a payload that is about to be
	// encoded as JSON, each in order.
	PreSerialization []func(req *Req, rep *Rep, payload any) (any, error)
	// OnSend hooks may replace the encoded body, each in order. They see
	// the content type the reply will have, and the body they get is
	// theirs to keep.
	OnSend []func(req *Req, rep *Rep, body []byte) ([]byte, error)
}

// SlotValue is the starting value of one request decorator slot.
type SlotValue struct {
	Index int
	Value any
}
