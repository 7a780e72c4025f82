// Command openapi-client drives a running example/todo through a client
// that oapi-codegen generated from the service's own OpenAPI 3.0.3
// document: create, list, get, patch and delete, and a get after the
// delete, each answer checked. scripts/openapi-check.sh generates the
// client (client.gen.go, package main) next to this file in a copy of
// this module, then runs it; the file is not committed, so this module
// builds only there.
//
//	openapi-client -url http://127.0.0.1:8080 -token tokenA
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "the todo service")
	token := flag.String("token", "", "a user's bearer token")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := roundTrip(ctx, *url, *token); err != nil {
		fmt.Fprintln(os.Stderr, "openapi-client:", err)
		os.Exit(1)
	}
	fmt.Println("create, list, get, patch, delete: every answer as the document says")
}

func roundTrip(ctx context.Context, url, token string) error {
	c, err := NewClientWithResponses(url, WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}))
	if err != nil {
		return err
	}

	done := true
	created, err := c.PostTodosWithResponse(ctx, PostTodosJSONRequestBody{Title: "write the client", Done: &done})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if created.JSON201 == nil {
		return fmt.Errorf("create: status %d: %s", created.StatusCode(), created.Body)
	}
	todo := *created.JSON201
	if want := "/todos/" + strconv.FormatInt(todo.Id, 10); created.HTTPResponse.Header.Get("Location") != want {
		return fmt.Errorf("create: Location %q, want %q", created.HTTPResponse.Header.Get("Location"), want)
	}
	if todo.Title != "write the client" || !todo.Done {
		return fmt.Errorf("create: got %+v", todo)
	}

	limit := int64(10)
	list, err := c.GetTodosWithResponse(ctx, &GetTodosParams{Limit: &limit, Done: &done})
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	if list.JSON200 == nil || len(*list.JSON200) != 1 || (*list.JSON200)[0].Id != todo.Id {
		return fmt.Errorf("list: status %d: %s", list.StatusCode(), list.Body)
	}

	got, err := c.GetTodosByIdWithResponse(ctx, todo.Id)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	if got.JSON200 == nil || *got.JSON200 != todo {
		return fmt.Errorf("get: status %d: %s", got.StatusCode(), got.Body)
	}

	title, undone := "write the client, and test it", false
	patched, err := c.PatchTodosByIdWithResponse(ctx, todo.Id, &PatchTodosByIdParams{}, PatchTodosByIdJSONRequestBody{Title: &title, Done: &undone})
	if err != nil {
		return fmt.Errorf("patch: %w", err)
	}
	if patched.JSON200 == nil || patched.JSON200.Title != title || patched.JSON200.Done {
		return fmt.Errorf("patch: status %d: %s", patched.StatusCode(), patched.Body)
	}

	deleted, err := c.DeleteTodosByIdWithResponse(ctx, todo.Id, &DeleteTodosByIdParams{})
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	if deleted.StatusCode() != http.StatusNoContent || len(deleted.Body) != 0 {
		return fmt.Errorf("delete: status %d: %q", deleted.StatusCode(), deleted.Body)
	}

	gone, err := c.GetTodosByIdWithResponse(ctx, todo.Id)
	if err != nil {
		return fmt.Errorf("get after delete: %w", err)
	}
	if gone.StatusCode() != http.StatusNotFound {
		return fmt.Errorf("get after delete: status %d, want 404: %s", gone.StatusCode(), gone.Body)
	}
	if gone.JSON404 == nil || gone.JSON404.StatusCode != http.StatusNotFound {
		return errors.New("get after delete: the 404 body is not the document's Error")
	}
	return nil
}
