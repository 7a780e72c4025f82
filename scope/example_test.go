package scope_test

import (
	"fmt"
	"reflect"

	"github.com/burrow-go/burrow/scope"
)

func ExampleContext_Require() {
	root := scope.New("root")
	public := root.Child("publicContext")
	authenticated := root.Child("authenticatedContext")
	if _, err := public.DeclareRequest("foo", reflect.TypeFor[string](), ""); err != nil {
		panic(err)
	}

	_, err := authenticated.Require(scope.Key{Kind: scope.Request, Name: "foo"})
	fmt.Println(err)
	// Output: request decorator "foo", which is only provided in sibling context root > publicContext
}
