package httpx_test

import (
	"fmt"

	"github.com/burrow-go/burrow/httpx"
)

func ExampleRouter() {
	var r httpx.Router[string]
	r.Add("GET", "/users/:id", "show user")
	r.Add("GET", "/users/me", "show me")
	r.Add("GET", "/files/*", "serve file")

	for _, path := range []string{"/users/42", "/users/me", "/files/a/b.txt"} {
		var ps httpx.Params
		h, _, _ := r.Lookup("GET", path, &ps)
		fmt.Println(path, "→", h, ps)
	}
	_, allow, m := r.Lookup("POST", "/users/42", new(httpx.Params))
	fmt.Println(m == httpx.MethodNotAllowed, allow)
	// Output:
	// /users/42 → show user [{id 42}]
	// /users/me → show me []
	// /files/a/b.txt → serve file [{* a/b.txt}]
	// true GET
}
