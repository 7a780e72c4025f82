package app_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

// importForm is an upload with a file and values beside it.
type importForm struct {
	app.In
	File   *app.File   `form:"file" validate:"required"`
	Extra  []*app.File `form:"extra" validate:"max=3"`
	Title  string      `form:"title" default:"untitled" validate:"max=20"`
	Rows   int         `form:"rows" validate:"min=0"`
	Labels []string    `form:"label"`
}

// part is one part of a multipart body: a value, or a file when
// filename is set (or file is).
type part struct {
	name, filename, ctype, content string
	file                           bool
}

// multipartBody writes parts as a multipart/form-data body and returns
// it with its Content-Type.
func multipartBody(t *testing.T, parts ...part) (*bytes.Buffer, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disp := fmt.Sprintf(`form-data; name=%q`, p.name)
		if p.file || p.filename != "" {
			disp += fmt.Sprintf(`; filename=%q`, p.filename)
		}
		h.Set("Content-Disposition", disp)
		if p.ctype != "" {
			h.Set("Content-Type", p.ctype)
		}
		pw, err := w.CreatePart(h)
		require.NoError(t, err)
		_, err = io.WriteString(pw, p.content)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return &b, w.FormDataContentType()
}

// describe is what a handler tells of the files it got: their names,
// types, sizes and contents, and whether each is in memory or on disk.
func describe(t *testing.T, dir string, files ...*app.File) string {
	var out []string
	for _, f := range files {
		if f == nil {
			out = append(out, "<nil>")
			continue
		}
		r, err := f.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(r)
		require.NoError(t, err)
		require.NoError(t, r.Close())
		where := "memory"
		if _, disk := r.(*os.File); disk {
			where = "disk"
		}
		out = append(out, fmt.Sprintf("%s(%s,%d,%s)=%q", f.Filename, f.ContentType, f.Size, where, b))
	}
	return strings.Join(out, " ")
}

// tempFiles lists what dir holds.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// importServer serves importForm at /import, with its temporary files
// in dir and at most memory bytes of files in memory.
func importServer(t *testing.T, dir string, limits app.MultipartLimits, opts ...app.Option) *app.Server {
	t.Helper()
	s := app.New(opts...)
	limits.TempDir = dir
	require.NoError(t, s.SetMultipartLimits(limits))
	require.NoError(t, app.Post(s, "/import", func(_ context.Context, in importForm) (string, error) {
		return fmt.Sprintf("title=%s rows=%d labels=%v file=%s extra=[%s] spooled=%d", in.Title, in.Rows, in.Labels,
			describe(t, dir, in.File), describe(t, dir, in.Extra...), len(tempFiles(t, dir))), nil
	}))
	require.NoError(t, s.Ready())
	return s
}

func TestMultipartFields(t *testing.T) {
	t.Parallel()
	csv := "title,done\nmilk,false\n"
	tests := []struct {
		name   string
		parts  []part
		status int
		want   string
	}{
		{"values and a file", []part{
			{name: "title", content: "groceries"}, {name: "rows", content: "2"},
			{name: "label", content: "a"}, {name: "label", content: "b"},
			{name: "file", filename: "todos.csv", ctype: "text/csv", content: csv},
		}, 200, `title=groceries rows=2 labels=[a b] file=todos.csv(text/csv,22,memory)="title,done\nmilk,false\n" extra=[] spooled=0`},
		{"defaults, and a file sent before its values", []part{
			{name: "file", filename: "a.csv", content: "x"},
		}, 200, `title=untitled rows=0 labels=[] file=a.csv(,1,memory)="x" extra=[] spooled=0`},
		{"every part of a slice's name", []part{
			{name: "file", filename: "a", content: "1"}, {name: "extra", filename: "b", content: "22"}, {name: "extra", filename: "c", content: "333"},
		}, 200, `extra=[b(,2,memory)="22" c(,3,memory)="333"]`},
		{"a directory in the file name is dropped", []part{
			{name: "file", filename: "../../etc/passwd", content: "x"},
		}, 200, `file=passwd(`},
		{"a file part without a file name is a file", []part{
			{name: "file", content: "curl -F file=<x"},
		}, 200, `file=(,15,memory)="curl -F file=<x"`},
		{"parts no field asks for are dropped", []part{
			{name: "__proto__", content: "x"}, {name: "other", filename: "o.bin", content: "yyy"}, {name: "file", filename: "f", content: "z"},
		}, 200, `file=f(,1,memory)="z"`},
		{"no file part", []part{{name: "title", content: "t"}}, 400, `"path":"body/file","rule":"required"`},
		{"an empty file input", []part{{name: "file", file: true}}, 400, `"path":"body/file","rule":"required"`},
		{"an empty file with a name is a file", []part{{name: "file", filename: "empty.txt"}}, 200, `file=empty.txt(,0,memory)=""`},
		{"two parts for one file", []part{{name: "file", filename: "a", content: "1"}, {name: "file", filename: "b", content: "2"}},
			400, `"path":"body/file","rule":"type","message":"must be one file, not several"`},
		{"a value that does not convert", []part{{name: "file", filename: "a"}, {name: "rows", content: "many"}},
			400, `"path":"body/rows","rule":"type"`},
		{"a rule", []part{{name: "file", filename: "a"}, {name: "rows", content: "-1"}}, 400, `"path":"body/rows","rule":"min"`},
		{"a slice of files' rule", []part{{name: "file", filename: "a"},
			{name: "extra", filename: "1"}, {name: "extra", filename: "2"}, {name: "extra", filename: "3"}, {name: "extra", filename: "4"}},
			400, `"path":"body/extra","rule":"max"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := importServer(t, dir, app.MultipartLimits{})
			body, ct := multipartBody(t, tt.parts...)
			res, reply := send(t, s, "POST", "/import", ct, body)
			assert.Equal(t, tt.status, res.StatusCode, reply)
			assert.Contains(t, reply, tt.want)
			assert.Empty(t, tempFiles(t, dir))
		})
	}
}

func TestMultipartSpoolsPastTheMemoryLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := importServer(t, dir, app.MultipartLimits{MemoryBytes: 10})
	big := strings.Repeat("x", 64<<10)
	body, ct := multipartBody(t,
		part{name: "file", filename: "small", content: "0123456789"}, // fits exactly
		part{name: "extra", filename: "one", content: "a"},           // does not: nothing is left
		part{name: "extra", filename: "big", content: big},
	)
	res, reply := send(t, s, "POST", "/import", ct, body)
	require.Equal(t, 200, res.StatusCode, reply)
	assert.Contains(t, reply, `file=small(,10,memory)="0123456789"`)
	assert.Contains(t, reply, `extra=[one(,1,disk)="a" big(,65536,disk)="`+big+`"]`)
	assert.Contains(t, reply, "spooled=2")
	assert.Empty(t, tempFiles(t, dir), "the temporary files outlived the request")
}

func TestMultipartMediaTypes(t *testing.T) {
	t.Parallel()
	s := importServer(t, t.TempDir(), app.MultipartLimits{})
	tests := []struct {
		name, ct, body string
		status         int
		want           string
	}{
		{"json", "application/json", `{"file":"x"}`, 415, "Unsupported Media Type: application/json"},
		{"urlencoded cannot hold a file", "application/x-www-form-urlencoded", "file=x", 415, "Unsupported Media Type: application/x-www-form-urlencoded"},
		{"no media type", "", "x", 415, "Unsupported Media Type: none"},
		{"no boundary", "multipart/form-data", "--x--", 400, "no boundary"},
		{"a malformed media type", "multipart/form-data; boundary=", "--x--", 400, "malformed"},
		{"no boundary in the body: no parts", "multipart/form-data; boundary=x", "hello", 400, `"path":"body/file"`},
		{"ends early", "multipart/form-data; boundary=x",
			"--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nabc", 400, "ended early"},
		{"an empty body is an empty form", "multipart/form-data; boundary=x", "", 400, `"path":"body/file"`},
		{"no parts", "multipart/form-data; boundary=x", "--x--\r\n", 400, `"path":"body/file"`},
		{"the media type's case", "Multipart/Form-Data; boundary=x",
			"--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nabc\r\n--x--\r\n", 200, `file=a(,3,memory)="abc"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, reply := send(t, s, "POST", "/import", tt.ct, strings.NewReader(tt.body))
			assert.Equal(t, tt.status, res.StatusCode, reply)
			assert.Contains(t, reply, tt.want)
		})
	}
}

func TestMultipartLimits(t *testing.T) {
	t.Parallel()
	many := make([]part, 0, 1001)
	for i := range 1000 {
		many = append(many, part{name: fmt.Sprint("hello", i), content: "world"})
	}
	tests := []struct {
		name   string
		limits app.MultipartLimits
		route  []app.RouteOption
		parts  []part
		status int
		want   string
	}{
		{"a file at its limit", app.MultipartLimits{FileBytes: 500}, nil,
			[]part{{name: "file", filename: "f", content: strings.Repeat("x", 500)}}, 200, `file=f(,500,`},
		{"a file past its limit", app.MultipartLimits{FileBytes: 500}, nil,
			[]part{{name: "file", filename: "f", content: strings.Repeat("x", 501)}}, 413,
			`"code":"FST_REQ_FILE_TOO_LARGE","error":"Request Entity Too Large","message":"file \"file\" is larger than 500 bytes"`},
		{"a file on disk past its limit", app.MultipartLimits{FileBytes: 17000, MemoryBytes: 1}, []app.RouteOption{app.BodyLimit(4 << 20)},
			[]part{{name: "extra", filename: "random-data", content: strings.Repeat("x", 1<<20)}}, 413, `file \"extra\" is larger than 17000 bytes`},
		{"the route's limit over its context's", app.MultipartLimits{FileBytes: 500},
			[]app.RouteOption{app.WithMultipartLimits(app.MultipartLimits{FileBytes: 1000})},
			[]part{{name: "file", filename: "f", content: strings.Repeat("x", 501)}}, 200, `file=f(,501,`},
		{"the default file limit: 1 MiB", app.MultipartLimits{}, []app.RouteOption{app.BodyLimit(16 << 20)},
			[]part{{name: "file", filename: "f", content: strings.Repeat("x", 1<<20+1)}}, 413, `file \"file\" is larger than 1048576 bytes`},
		{"a value past its limit", app.MultipartLimits{ValueBytes: 4}, nil,
			[]part{{name: "title", content: "12345"}}, 413, `"code":"ERR_FORM_VALUE_TOO_LARGE","error":"Request Entity Too Large","message":"form value \"title\" is larger than 4 bytes"`},
		{"the default parts limit: 1000", app.MultipartLimits{}, nil, many, 400, `"path":"body/file"`},
		{"one part more", app.MultipartLimits{}, nil, append(many, part{name: "hello", content: "world"}), 413,
			`"code":"FST_PARTS_LIMIT","error":"Request Entity Too Large","message":"multipart body has more than 1000 parts"`},
		{"the body limit", app.MultipartLimits{}, []app.RouteOption{app.BodyLimit(100)},
			[]part{{name: "file", filename: "f", content: strings.Repeat("x", 100)}}, 413, `"code":"FST_ERR_CTP_BODY_TOO_LARGE"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := app.New()
			tt.limits.TempDir = dir
			require.NoError(t, s.SetMultipartLimits(tt.limits))
			require.NoError(t, app.Post(s, "/import", func(_ context.Context, in importForm) (string, error) {
				return "file=" + describe(t, dir, in.File) + " extra=" + describe(t, dir, in.Extra...), nil
			}, tt.route...))
			require.NoError(t, s.Ready())
			body, ct := multipartBody(t, tt.parts...)
			res, reply := send(t, s, "POST", "/import", ct, body)
			assert.Equal(t, tt.status, res.StatusCode, reply)
			assert.Contains(t, reply, tt.want)
			if tt.status == 413 {
				assert.Equal(t, "close", res.Header.Get("Connection"))
			}
			assert.Empty(t, tempFiles(t, dir))
		})
	}
}

func TestMultipartLimitsAreChecked(t *testing.T) {
	t.Parallel()
	s := app.New()
	err := s.SetMultipartLimits(app.MultipartLimits{Parts: -1})
	require.Error(t, err)
	assert.ErrorIs(t, err, app.ErrInvalidInput)
	err = app.Post(s, "/x", func(context.Context, importForm) (string, error) { return "", nil },
		app.WithMultipartLimits(app.MultipartLimits{FileBytes: -1}))
	require.Error(t, err)
	assert.ErrorIs(t, err, app.ErrInvalidInput)
}

// streamUpload posts a multipart body whose file part holds size bytes,
// written as the server reads them, with or without a Content-Length.
func streamUpload(t *testing.T, url string, size int64, announced bool) (int, bool) {
	t.Helper()
	head := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.csv\"\r\n\r\n"
	tail := "\r\n--b--\r\n"
	body := io.MultiReader(strings.NewReader(head), io.LimitReader(zeros{}, size), strings.NewReader(tail))
	req, err := http.NewRequest("POST", url, body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	if announced {
		req.ContentLength = int64(len(head)) + size + int64(len(tail))
	} else {
		req.Body = io.NopCloser(chunked{body})
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil { // the server may close before the client finished sending
		return 0, true
	}
	res.Body.Close()
	return res.StatusCode, res.Close
}

func TestMultipartLargeUploadIsNotReadToItsEnd(t *testing.T) {
	t.Parallel()
	const size = 50 << 20
	tests := []struct {
		name      string
		announced bool
		route     []app.RouteOption
	}{
		{"past the body limit, announced", true, nil},
		{"past the body limit, chunked", false, nil},
		{"past the file limit, chunked", false, []app.RouteOption{app.BodyLimit(100 << 20)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			var handled atomic.Bool
			require.NoError(t, app.Post(s, "/import", func(_ context.Context, in importForm) (string, error) {
				handled.Store(true)
				return "", nil
			}, tt.route...))
			require.NoError(t, s.Ready())
			srv, read := countingServer(t, s)

			status, closed := streamUpload(t, srv.URL+"/import", size, tt.announced)
			if status != 0 {
				assert.Equal(t, 413, status)
				assert.True(t, closed)
			}
			assert.False(t, handled.Load())
			assert.Less(t, read.Load(), int64(4<<20), "the server read %d of %d bytes", read.Load(), size)
		})
	}
}

func TestMultipartAuthHookRunsBeforeTheBodyIsRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := app.New()
	require.NoError(t, s.SetMultipartLimits(app.MultipartLimits{TempDir: dir, MemoryBytes: 1}))
	s.AddHook(app.OnRequest, func(req *httpx.Request) error {
		if req.Header("Authorization") != "Bearer ok" {
			return httpx.NewError(401, "", "denied")
		}
		return nil
	})
	require.NoError(t, app.Post(s, "/import", func(context.Context, importForm) (string, error) { return "", nil }))
	require.NoError(t, s.Ready())
	b, ct := multipartBody(t, part{name: "file", filename: "f", content: "abc"})
	body := &countingReader{r: b}
	res, reply := send(t, s, "POST", "/import", ct, body)
	assert.Equal(t, 401, res.StatusCode, reply)
	assert.Zero(t, body.n.Load())
	assert.Empty(t, tempFiles(t, dir))
}

func TestMultipartStartUpErrors(t *testing.T) {
	t.Parallel()
	type byValue struct {
		app.In
		File app.File `form:"file"`
	}
	type fileDefault struct {
		app.In
		File *app.File `form:"file" default:"x"`
	}
	type fileGroup struct {
		app.In
		File app.File `form:""`
	}
	type fileAndBody struct {
		app.In
		File *app.File      `form:"file"`
		Body map[string]any `body:""`
	}
	type fileRule struct {
		app.In
		File *app.File `form:"file" validate:"max=3"`
	}
	type untagged struct {
		app.In
		Upload *app.File
	}
	tests := []struct {
		name string
		h    func(s *app.Server) error
		want string
	}{
		{"a file by value", func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, byValue) (string, error) { return "", nil })
		}, "app_test.byValue.File is a file of type app.File: a file field is a *app.File (one part) or a []*app.File"},
		{"a file's default", func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, fileDefault) (string, error) { return "", nil })
		}, "app_test.fileDefault.File: a file takes no default"},
		{"a file as a group", func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, fileGroup) (string, error) { return "", nil })
		}, `app_test.fileGroup.File is a file: take it as *app.File, tagged with its part's name (form:"file")`},
		{"a file and a body", func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, fileAndBody) (string, error) { return "", nil })
		}, "form fields and the route also decodes a body"},
		{"a rule a file cannot have", func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, fileRule) (string, error) { return "", nil })
		}, "max"},
		{"a file without its tag", func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, untagged) (string, error) { return "", nil })
		}, `needs service *app.File, which no context provides; did you mean to tag the field Upload form:"upload", to take an uploaded file?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			require.NoError(t, tt.h(s))
			err := s.Ready()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestMultipartTempFilesAreRemoved spools a file to disk and ends the
// request in each way a request ends; the file must be gone after.
func TestMultipartTempFilesAreRemoved(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    []app.Option
		handler func(ctx context.Context, in importForm) (string, error)
	}{
		{"success", nil, func(context.Context, importForm) (string, error) { return "ok", nil }},
		{"an error", nil, func(context.Context, importForm) (string, error) { return "", httpx.NewError(500, "", "test") }},
		{"a panic", nil, func(context.Context, importForm) (string, error) { panic("test") }},
		{"an aborted handler", nil, func(context.Context, importForm) (string, error) { panic(http.ErrAbortHandler) }},
		{"the request time-out", []app.Option{app.WithRequestTimeout(time.Millisecond)}, func(ctx context.Context, in importForm) (string, error) {
			<-ctx.Done()
			return "late", nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := app.New(tt.opts...)
			require.NoError(t, s.SetMultipartLimits(app.MultipartLimits{TempDir: dir, MemoryBytes: 1}))
			spooled := make(chan []string, 1)
			require.NoError(t, app.Post(s, "/import", func(ctx context.Context, in importForm) (string, error) {
				spooled <- tempFiles(t, dir)
				return tt.handler(ctx, in)
			}))
			require.NoError(t, s.Ready())
			url := apptest.Serve(t, s)
			body, ct := multipartBody(t, part{name: "file", filename: "f.csv", content: "title,done\n"})
			res, err := http.Post(url+"/import", ct, body)
			if err == nil {
				res.Body.Close()
			}
			assert.Len(t, <-spooled, 1, "the file was not spooled to disk")
			assert.Eventually(t, func() bool { return len(tempFiles(t, dir)) == 0 }, 10*time.Second, 5*time.Millisecond,
				"the temporary file outlived the request")
		})
	}
}

// TestMultipartClientAbort: a client that goes away in the middle of a
// file, or while the handler runs, leaves no temporary file.
func TestMultipartClientAbort(t *testing.T) {
	t.Parallel()
	for _, during := range []string{"upload", "handler"} {
		t.Run(during, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := app.New()
			require.NoError(t, s.SetMultipartLimits(app.MultipartLimits{TempDir: dir, MemoryBytes: 1}))
			entered := make(chan struct{})
			var handled atomic.Bool
			require.NoError(t, app.Post(s, "/import", func(ctx context.Context, in importForm) (string, error) {
				handled.Store(true)
				close(entered)
				<-ctx.Done() // the client is gone
				return "", ctx.Err()
			}))
			require.NoError(t, s.Ready())
			url := apptest.Serve(t, s)

			pr, pw := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, "POST", url+"/import", pr)
			require.NoError(t, err)
			req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
			done := make(chan struct{})
			go func() {
				defer close(done)
				if res, err := http.DefaultClient.Do(req); err == nil {
					res.Body.Close()
				}
			}()
			_, err = io.WriteString(pw, "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\n"+strings.Repeat("x", 64<<10))
			require.NoError(t, err)
			if during == "handler" {
				_, err = io.WriteString(pw, "\r\n--b--\r\n")
				require.NoError(t, err)
				require.NoError(t, pw.Close()) // the body is whole
				select {
				case <-entered:
				case <-time.After(10 * time.Second):
					require.FailNow(t, "the handler was never called")
				}
			} else {
				// The server has spooled what it read: the file is on disk.
				require.Eventually(t, func() bool { return len(tempFiles(t, dir)) == 1 }, 10*time.Second, 5*time.Millisecond)
			}
			cancel()
			pw.CloseWithError(context.Canceled)
			<-done
			assert.Eventually(t, func() bool { return len(tempFiles(t, dir)) == 0 }, 10*time.Second, 5*time.Millisecond,
				"the temporary file outlived the request")
			assert.Equal(t, during == "handler", handled.Load())
		})
	}
}

// TestMultipartSerialRequestsEachRemoveTheirFiles: the same route, one
// request after another, failing each time.
func TestMultipartSerialRequestsEachRemoveTheirFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := app.New()
	require.NoError(t, s.SetMultipartLimits(app.MultipartLimits{TempDir: dir, MemoryBytes: 1}))
	require.NoError(t, app.Post(s, "/import", func(_ context.Context, in importForm) (string, error) {
		return "", fmt.Errorf("test: %d files on disk", len(tempFiles(t, dir)))
	}))
	require.NoError(t, s.Ready())
	for range 3 {
		body, ct := multipartBody(t, part{name: "file", filename: "f", content: "abc"})
		res, reply := send(t, s, "POST", "/import", ct, body)
		assert.Equal(t, 500, res.StatusCode, reply)
		assert.Empty(t, tempFiles(t, dir))
	}
}

// TestMultipartDiskFailureIsTheServers: a temporary file that cannot be
// written is a 500 that does not tell the client where.
func TestMultipartDiskFailureIsTheServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/missing"
	s := importServer(t, dir, app.MultipartLimits{MemoryBytes: 1})
	body, ct := multipartBody(t, part{name: "file", filename: "f", content: "abc"})
	res, reply := send(t, s, "POST", "/import", ct, body)
	assert.Equal(t, 500, res.StatusCode, reply)
	assert.NotContains(t, reply, dir)
}

// TestFormBodyThroughPreParsing: a preParsing hook's body reader (a
// decompressor) is what the form is read from, and the limits count
// what it gives.
func TestFormBodyThroughPreParsing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := app.New()
	require.NoError(t, s.SetMultipartLimits(app.MultipartLimits{TempDir: dir, FileBytes: 1 << 10}))
	s.AddHook(app.PreParsing, func(req *httpx.Request) error {
		zr, err := gzip.NewReader(req.BodyReader())
		if err != nil {
			return httpx.NewError(400, "BAD_GZIP", err.Error())
		}
		req.SetBodyReader(zr)
		return nil
	})
	require.NoError(t, app.Post(s, "/login", func(_ context.Context, in loginForm) (string, error) { return in.User, nil }))
	require.NoError(t, app.Post(s, "/import", func(_ context.Context, in importForm) (string, error) {
		return describe(t, dir, in.File), nil
	}))
	require.NoError(t, s.Ready())
	gz := func(r io.Reader) io.Reader {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		_, err := io.Copy(w, r)
		require.NoError(t, err)
		require.NoError(t, w.Close())
		return &buf
	}
	res, reply := send(t, s, "POST", "/login", "application/x-www-form-urlencoded", gz(strings.NewReader("user=ann&token=t")))
	assert.Equal(t, 200, res.StatusCode, reply)
	assert.Equal(t, "ann", reply)

	body, ct := multipartBody(t, part{name: "file", filename: "f", content: "abc"})
	res, reply = send(t, s, "POST", "/import", ct, gz(body))
	assert.Equal(t, 200, res.StatusCode, reply)
	assert.Equal(t, `f(,3,memory)="abc"`, reply)

	body, ct = multipartBody(t, part{name: "file", filename: "f", content: strings.Repeat("a", 2<<10)})
	res, reply = send(t, s, "POST", "/import", ct, gz(body))
	assert.Equal(t, 413, res.StatusCode, reply)
	assert.Contains(t, reply, "FST_REQ_FILE_TOO_LARGE")
}

// TestMultipartStalledUpload: a client that stops sending in the middle
// of a file gets a 408 once the body time-out passes, and what was
// spooled of its file is removed.
func TestMultipartStalledUpload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := app.New(app.WithBodyTimeout(50 * time.Millisecond))
	require.NoError(t, s.SetMultipartLimits(app.MultipartLimits{TempDir: dir, MemoryBytes: 1}))
	require.NoError(t, app.Post(s, "/import", func(context.Context, importForm) (string, error) { return "", nil }))
	require.NoError(t, s.Ready())
	url := apptest.Serve(t, s)

	pr, pw := io.Pipe()
	defer pw.Close()
	req, err := http.NewRequest("POST", url+"/import", pr)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	go func() {
		// Then nothing more: the client stalls.
		_, _ = io.WriteString(pw, "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\n"+strings.Repeat("x", 64<<10))
	}()
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	assert.Equal(t, http.StatusRequestTimeout, res.StatusCode, string(b))
	assert.Contains(t, string(b), "ERR_BODY_TIMEOUT")
	assert.Empty(t, tempFiles(t, dir))
}

// postOver sends body with content type ct to url over a real
// connection, and returns the answer's status and body.
func postOver(t *testing.T, url, ct, body string) (int, string) {
	t.Helper()
	res, err := http.Post(url, ct, strings.NewReader(body))
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// A file's name keeps no directory, whichever separator the client
// used: a browser on Windows, or an attacker, sends backslashes, which
// are no separator on Linux or macOS.
func TestMultipartFileNameKeepsNoDirectory(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(importServer(t, t.TempDir(), app.MultipartLimits{}))
	t.Cleanup(srv.Close)
	tests := []struct{ disposition, want string }{
		{`filename="report.pdf"`, "report.pdf"},
		{`filename="résumé.pdf"`, "résumé.pdf"},
		{`filename="../../etc/passwd"`, "passwd"},
		{`filename="..\..\windows\evil.exe"`, "evil.exe"}, // unescaped, as a browser sends it
		{`filename="..\\..\\windows\\evil.exe"`, "evil.exe"},
		{`filename="C:\x\r.pdf"`, "r.pdf"},
		{`filename="\\server\share\x.csv"`, "x.csv"},
		{`filename*=UTF-8''..%5C..%5Cevil.exe`, "evil.exe"},
		{`filename="a/b\c"`, "c"},
		{`filename="a\b/c"`, "c"},
		{`filename=".."`, ""},
		{`filename="."`, ""},
		{`filename="/"`, ""},
		{`filename="\\"`, ""},
		{`filename="dir\\"`, ""},
		{`filename="dir/"`, ""},
		{`filename="a\.."`, ""},
		{`filename="..."`, "..."},
	}
	for _, tt := range tests {
		t.Run(tt.disposition, func(t *testing.T) {
			t.Parallel()
			body := "--x\r\nContent-Disposition: form-data; name=\"file\"; " + tt.disposition + "\r\n\r\nabc\r\n--x--\r\n"
			status, reply := postOver(t, srv.URL+"/import", "multipart/form-data; boundary=x", body)
			require.Equal(t, 200, status, reply)
			assert.Contains(t, reply, "file="+tt.want+`(,3,memory)="abc"`)
		})
	}
}

// A 400 answering a malformed form repeats at most 1 KiB of what the
// client sent, as every echo of the client's text: a malformed part
// header line of 300 KB answered 1.5 MB.
func TestFormErrorsCutTheClientsText(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(importServer(t, t.TempDir(), app.MultipartLimits{}))
	t.Cleanup(srv.Close)
	long := 300 << 10
	tests := []struct{ name, body string }{
		{"bytes that are not UTF-8", strings.Repeat("\xff", long)},
		{"a line without a colon", strings.Repeat("a", long)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n" + tt.body + "\r\n\r\nabc\r\n--x--\r\n"
			status, reply := postOver(t, srv.URL+"/import", "multipart/form-data; boundary=x", body)
			assert.Equal(t, 400, status)
			assert.Contains(t, reply, `"code":"ERR_BAD_FORM"`)
			assert.Contains(t, reply, "multipart body is malformed")
			assert.Contains(t, reply, `…"`, "the message ends cut")
			assert.Less(t, len(reply), 3<<10, "%.200s", reply)
		})
	}
}
