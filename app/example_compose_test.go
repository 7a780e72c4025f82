package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	"github.com/burrow-go/burrow/app"
)

// A field tagged with a source and no name is a group: its fields are
// that source's values, read by their own tags, with their defaults and
// rules. A group written once serves every route that pages.
func ExampleIn_group() {
	type page struct {
		Limit  int `query:"limit" default:"20" validate:"min=1,max=100"`
		Offset int `query:"offset" validate:"min=0"`
	}
	type listTodos struct {
		app.In
		Page page `query:""`
	}
	s := app.New()
	_ = app.Get(s, "/todos", func(_ context.Context, in listTodos) (string, error) {
		return fmt.Sprintf("limit %d, offset %d", in.Page.Limit, in.Page.Offset), nil
	})
	fmt.Println(get(s, "/todos"))
	fmt.Println(get(s, "/todos?limit=5&offset=10"))
	fmt.Println(get(s, "/todos?limit=500"))
	// Output:
	// 200 limit 20, offset 0
	// 200 limit 5, offset 10
	// 400 {"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"querystring/limit must be <= 100","validation":[{"path":"querystring/limit","rule":"max","message":"must be <= 100"}]}
}

// Paging is a reusable group of inputs, meant to be embedded.
type Paging struct {
	Limit  int `query:"limit" default:"20" validate:"min=1,max=100"`
	Offset int `query:"offset"`
}

// An embedded struct whose fields carry Burrow's tags is flattened into
// the In struct, as encoding/json flattens one: its fields are read as
// if they were the In struct's own, and promoted as Go promotes them.
func ExampleIn_embedded() {
	type listTodos struct {
		app.In
		Paging
		Done *bool `query:"done"`
	}
	s := app.New()
	_ = app.Get(s, "/todos", func(_ context.Context, in listTodos) (string, error) {
		return fmt.Sprintf("limit %d, offset %d, done given: %t", in.Limit, in.Offset, in.Done != nil), nil
	})
	fmt.Println(get(s, "/todos?offset=40&done=true"))
	// Output:
	// 200 limit 20, offset 40, done given: true
}

// A body field carries rules of the body itself: here the size of an
// array, and that it must be sent at all.
func ExampleIn_bodyRules() {
	type todo struct {
		Title string `json:"title" validate:"required"`
	}
	type createBatch struct {
		app.In
		Body []todo `body:"" validate:"required,min=1,max=50"`
	}
	s := app.New()
	_ = app.Post(s, "/todos/batch", func(_ context.Context, in createBatch) (string, error) {
		return fmt.Sprintf("%d todos", len(in.Body)), nil
	})
	for _, body := range []string{`[{"title":"a"},{"title":"b"}]`, `[]`, ``} {
		req := httptest.NewRequest("POST", "/todos/batch", strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, _ := s.Inject(req)
		b, _ := io.ReadAll(res.Body)
		fmt.Println(res.StatusCode, string(b))
	}
	// Output:
	// 200 2 todos
	// 400 {"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"body must NOT have fewer than 1 items","validation":[{"path":"body","rule":"min","message":"must NOT have fewer than 1 items"}]}
	// 400 {"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"body is required","validation":[{"path":"body","rule":"required","message":"is required"}]}
}
