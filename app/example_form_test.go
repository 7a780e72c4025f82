package app_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"strings"

	"github.com/burrow-go/burrow/app"
)

// Fields tagged form read a form body, urlencoded or multipart, with
// the query's decoding, defaults and rules, or the same values as a JSON
// object; a *app.File field takes a file part of a multipart body, read
// within the route's limits (and JSON, which cannot carry a file, is
// refused there).
func ExampleIn_form() {
	type login struct {
		app.In
		User  string `form:"user" validate:"required"`
		Token string `form:"token" validate:"required"`
	}
	type importTodos struct {
		app.In
		File *app.File `form:"file" validate:"required"`
	}
	s := app.New()
	_ = app.Post(s, "/session", func(_ context.Context, in login) (string, error) {
		return "hello " + in.User, nil
	})
	_ = app.Post(s, "/todos/import", func(_ context.Context, in importTodos) (string, error) {
		f, err := in.File.Open()
		if err != nil {
			return "", err
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: %d rows", in.File.Filename, len(rows)-1), nil
	}, app.WithMultipartLimits(app.MultipartLimits{FileBytes: 1 << 20}))

	fmt.Println(postForm(s, "/session", "application/x-www-form-urlencoded", strings.NewReader("user=ann&token=t0k3n")))
	fmt.Println(postForm(s, "/session", "application/json", strings.NewReader(`{"user":"bob","token":"t0k3n"}`)))
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("file", "todos.csv")
	_, _ = io.WriteString(fw, "title,done\nmilk,false\nbread,true\n")
	_ = w.Close()
	fmt.Println(postForm(s, "/todos/import", w.FormDataContentType(), &body))
	fmt.Println(postForm(s, "/todos/import", "application/json", strings.NewReader(`{}`)))
	// Output:
	// 200 hello ann
	// 200 hello bob
	// 200 todos.csv: 2 rows
	// 415 {"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: application/json"}
}

// postForm sends body with content type ct to s and returns the answer's
// status and body.
func postForm(s *app.Server, target, ct string, body io.Reader) string {
	req := httptest.NewRequest("POST", target, body)
	req.Header.Set("Content-Type", ct)
	res, err := s.Inject(req)
	if err != nil {
		return err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return fmt.Sprint(res.StatusCode, " ", string(b))
}
