package httpx_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strconv"

	"github.com/burrow-go/burrow/app"
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

// account has a fixed shape, so it writes its own JSON: Send calls
// AppendJSON instead of encoding/json's reflection.
type account struct {
	ID   int
	Name string
}

func (u account) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, int64(u.ID), 10)
	dst = append(dst, `,"name":`...)
	dst = httpx.AppendJSONString(dst, u.Name)
	return append(dst, '}'), nil
}

func ExampleJSONAppender() {
	s := app.New()
	s.Get("/account", func(rep *httpx.Reply) error {
		return rep.Send(account{ID: 7, Name: `Ada "the first"`})
	})
	res, err := s.Inject(httptest.NewRequest("GET", "/account", nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.Header.Get("Content-Type"))
	fmt.Println(string(body))
	// Output:
	// application/json; charset=utf-8
	// {"id":7,"name":"Ada \"the first\""}
}
