package cookie_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/burrow-go/burrow/plugins/cookie"
)

// A signed cookie set on one request and read back on the next; a value
// the client changed is refused. Keys come from configuration, newest
// first.
func ExampleSigner() {
	signer, err := cookie.NewSigner([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		panic(err)
	}
	rec := httptest.NewRecorder()
	http.SetCookie(rec, cookie.New("theme", signer.Sign("theme", "dark")))

	set := rec.Result().Cookies()[0]
	v, err := signer.Verify("theme", set.Value)
	fmt.Println(v, err)
	_, err = signer.Verify("theme", "light"+set.Value[4:])
	fmt.Println(err)
	// Output:
	// dark <nil>
	// cookie: invalid value
}

// A sealed cookie: the client holds it but cannot read it.
func ExampleSealer() {
	sealer, err := cookie.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		panic(err)
	}
	sealed := sealer.Seal("cart", []byte(`{"items":3}`))
	plain, err := sealer.Open("cart", sealed)
	fmt.Println(string(plain), err)
	// Output: {"items":3} <nil>
}
