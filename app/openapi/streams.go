package openapi

import (
	"reflect"

	"github.com/burrow-go/burrow/app"
)

// upgrade describes, on op, a route that switches protocols (a
// WebSocket): the headers asking for it, the 101 that grants it, and
// the messages exchanged after it as the extension x-burrow-upgrade —
// OpenAPI describes HTTP exchanges, and has no word for them — each
// message with its JSON schema. It returns the header parameters.
func (b *builder) upgrade(u *app.UpgradeInfo, op obj) []any {
	ext := obj{"protocol": u.Protocol}
	// A message received is decoded as a request body is (in), one sent
	// encoded as a reply (out).
	for _, m := range []struct {
		key string
		t   reflect.Type
		dir direction
	}{{"receive", u.Receive, in}, {"send", u.Send, out}} {
		if m.t != nil {
			ext[m.key] = obj{"contentMediaType": "application/json", "schema": b.schemas.of(m.t, m.dir)}
		}
	}
	op["x-burrow-upgrade"] = ext
	if res, ok := op["responses"].(obj)["101"].(obj); ok {
		res["description"] = "Switching Protocols: the connection speaks " + u.Protocol +
			" from here on, exchanging the messages of x-burrow-upgrade (receive: the client's; send: the server's)."
	}
	return []any{
		obj{"name": "Upgrade", "in": "header", "required": true, "schema": obj{"type": "string", "enum": []any{u.Protocol}}},
		obj{"name": "Connection", "in": "header", "required": true, "schema": obj{"type": "string"},
			"description": "Upgrade (among other tokens)."},
	}
}

// itemSchema is the schema of one item of x, a stream (OpenAPI 3.2's
// itemSchema): for text/event-stream, an event as 3.2 reads one (its
// fields data, event, id and retry), whose data holds the JSON of x.Item
// when it is declared; for the JSON sequences, x.Item's schema, or
// anything when it is not declared.
func (b *builder) itemSchema(x app.ResponseInfo) obj {
	var item obj
	if x.Item != nil {
		item = b.schemas.of(x.Item, out)
	}
	if x.MediaType != "text/event-stream" {
		if item == nil {
			return obj{}
		}
		return item
	}
	data := obj{"type": "string"}
	if item != nil {
		data["contentMediaType"], data["contentSchema"] = "application/json", item
	}
	return obj{"type": "object", "required": []any{"data"}, "properties": obj{
		"data":  data,
		"event": obj{"type": "string"},
		"id":    obj{"type": "string"},
		"retry": obj{"type": "integer", "minimum": 0},
	}}
}
