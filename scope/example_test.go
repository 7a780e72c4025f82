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
	public.Declare(scope.Decl{Key: scope.Key{Kind: scope.Request, Name: "foo"}, ValueType: reflect.TypeFor[string]()})

	_, err := authenticated.Require(scope.Key{Kind: scope.Request, Name: "foo"})
	fmt.Println(err)
	// Output: request decorator "foo", which is only provided in sibling context root > publicContext
}
