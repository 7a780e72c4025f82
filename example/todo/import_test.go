package main

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/httpx"
)

// TestReadImport: the CSV a POST /todos/import file holds, and the 400
// of every way it can be wrong.
func TestReadImport(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 200)
	var thousand strings.Builder
	thousand.WriteString("title,done\n")
	for i := range maxImportRows {
		fmt.Fprintf(&thousand, "t%d,\n", i)
	}
	tests := []struct {
		name, csv string
		want      []newTodo
		err       string
	}{
		{"rows", "title,done\nMilk,true\nEggs,false\nBread,\n", []newTodo{{"Milk", true}, {"Eggs", false}, {"Bread", false}}, ""},
		{"no rows", "title,done\n", nil, ""},
		{"CRLF and a BOM", "\uFEFFtitle,done\r\nMilk,true\r\n", []newTodo{{"Milk", true}}, ""},
		{"no done column", "title,done\nMilk\n", []newTodo{{"Milk", false}}, ""},
		{"quoted", "title,done\n\"Milk, whole\",true\n\"say \"\"hi\"\"\",\n", []newTodo{{"Milk, whole", true}, {`say "hi"`, false}}, ""},
		{"200 characters", "title,done\n" + long + ",\n", []newTodo{{long, false}}, ""},
		{"a repeated title is the store's", "title,done\nMilk,\nMilk,\n", []newTodo{{"Milk", false}, {"Milk", false}}, ""},
		{"1000 rows", thousand.String(), nil, ""},
		{"1001 rows", thousand.String() + "one more,\n", nil, invalid("body/file", "maxItems", "must NOT have more than 1000 rows")},
		{"empty", "", nil, invalid("body/file", "required", "must have the header row title,done")},
		{"no header", "Milk,true\n", nil, invalid("body/file", "header", "must begin with the header row title,done")},
		{"another header", "name,done\nMilk,true\n", nil, invalid("body/file", "header", "must begin with the header row title,done")},
		{"three columns", "title,done\nMilk,true,x\n", nil, invalid("body/file", "csv", "line 2: must have the columns title,done, not 3")},
		{"empty title", "title,done\n,true\n", nil, invalid("body/file", "title", "line 2: the title must have 1 to 200 characters")},
		{"201 characters", "title,done\n" + long + "e,\n", nil, invalid("body/file", "title", "line 2: the title must have 1 to 200 characters")},
		{"not UTF-8", "title,done\n\xff,\n", nil, invalid("body/file", "title", "line 2: the title must have 1 to 200 characters")},
		{"done yes", "title,done\nMilk,yes\n", nil, invalid("body/file", "done", "line 2: done must be true, false or empty")},
		{"a bare quote", "title,done\nMi\"lk,true\n", nil, invalid("body/file", "csv", `line 2: bare \" in non-quoted-field`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := readImport(strings.NewReader(tc.csv))
			if tc.err != "" {
				require.Error(t, err)
				assert.Equal(t, tc.err, js(httpx.BodyOf(err)))
				return
			}
			require.NoError(t, err)
			if tc.name == "1000 rows" {
				assert.Len(t, got, maxImportRows)
				return
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// multipartFile is a multipart/form-data body with content as its part
// "file" (named todos.csv), and its Content-Type.
func multipartFile(t *testing.T, field, content string) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	part, err := w.CreateFormFile(field, "todos.csv")
	require.NoError(t, err)
	_, err = io.WriteString(part, content)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.String(), w.FormDataContentType()
}

// TestImport: POST /todos/import creates the todos of a CSV file, all or
// none.
func TestImport(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	upload := func(auth, content string) answer {
		body, ctype := multipartFile(t, "file", content)
		return s.exchange(t, "POST", "/todos/import", body, "Authorization", auth, "Content-Type", ctype)
	}
	a := upload(alice, "title,done\nMilk,true\nEggs,false\nBread,\n")
	require.Equal(t, 201, a.status, a.body)
	assert.Equal(t, `{"created":3}`, a.body)
	assert.Equal(t, `[{"id":1,"title":"Milk","done":true},{"id":2,"title":"Eggs","done":false},{"id":3,"title":"Bread","done":false}]`,
		s.do(t, "GET", "/todos", alice, "", "").body)

	a = upload(alice, "title,done\nTea,\nMilk,\n")
	assert.Equal(t, 409, a.status)
	assert.Equal(t, conflictBody("Milk"), a.body, "a title alice has")
	a = upload(alice, "title,done\nTea,\nCoffee,\nTea,true\n")
	assert.Equal(t, 409, a.status)
	assert.Equal(t, conflictBody("Tea"), a.body, "a title twice in the file")
	a = upload(alice, "title,done\n")
	assert.Equal(t, 201, a.status)
	assert.Equal(t, `{"created":0}`, a.body)
	assert.Equal(t, `[{"id":1,"title":"Milk","done":true},{"id":2,"title":"Eggs","done":false},{"id":3,"title":"Bread","done":false}]`,
		s.do(t, "GET", "/todos", alice, "", "").body, "nothing created by the refused files")

	a = upload(bob, "title,done\nMilk,\n")
	assert.Equal(t, 201, a.status, "bob may use alice's titles")
	assert.Equal(t, `{"created":1}`, a.body)
}

// TestImportRefused: what POST /todos/import refuses, and how.
func TestImportRefused(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	var many strings.Builder
	many.WriteString("title,done\n")
	for i := range maxImportRows + 1 {
		fmt.Fprintf(&many, "t%d,\n", i)
	}
	// Over 1 MiB: a few long rows, and many short ones (size comes first).
	big := "title,done\n" + strings.Repeat("x", maxImportBytes) + ",\n"
	var bigMany strings.Builder
	bigMany.WriteString("title,done\n")
	for i := 0; bigMany.Len() <= maxImportBytes; i++ {
		fmt.Fprintf(&bigMany, "t%d,\n", i)
	}
	exact := "title,done\n" + strings.Repeat("x", 200) + ",\n"
	exact += strings.Repeat(" ", maxImportBytes-len(exact)) // blank padding: a last row of spaces is a title
	fileTooLarge := `{"statusCode":413,"code":"FST_REQ_FILE_TOO_LARGE","error":"Request Entity Too Large","message":"file \"file\" is larger than 1048576 bytes"}`
	type tc struct {
		name, auth, field, content string
		status                     int
		body                       string
	}
	tests := []tc{
		{"1001 rows", alice, "file", many.String(), 400, invalid("body/file", "maxItems", "must NOT have more than 1000 rows")},
		{"over 1 MiB", alice, "file", big, 413, fileTooLarge},
		{"over 1 MiB of short rows", alice, "file", bigMany.String(), 413, fileTooLarge},
		{"no file part", alice, "other", "title,done\nMilk,\n", 400, invalid("body/file", "required", "is required")},
		{"a bad file", alice, "file", "title,done\nMilk,maybe\n", 400, invalid("body/file", "done", "line 2: done must be true, false or empty")},
		{"no token", "", "file", "title,done\nMilk,\n", 401, missingAuth},
		{"no token, over 1 MiB", "", "file", big, 401, missingAuth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body, ctype := multipartFile(t, tc.field, tc.content)
			header := []string{"Content-Type", ctype}
			if tc.auth != "" {
				header = append(header, "Authorization", tc.auth)
			}
			a := s.exchange(t, "POST", "/todos/import", body, header...)
			assert.Equal(t, tc.status, a.status)
			assert.Equal(t, tc.body, a.body)
		})
	}
	t.Run("exactly 1 MiB", func(t *testing.T) {
		t.Parallel()
		body, ctype := multipartFile(t, "file", exact)
		a := s.exchange(t, "POST", "/todos/import", body, "Content-Type", ctype, "Authorization", bob)
		assert.Equal(t, 400, a.status, "read, and judged by its rows: %s", a.body)
		assert.Contains(t, a.body, `"path":"body/file","rule":"title"`)
	})
	for _, ctype := range []string{jsonType, formType, "text/csv"} {
		t.Run(ctype, func(t *testing.T) {
			t.Parallel()
			a := s.exchange(t, "POST", "/todos/import", "title,done\nMilk,\n", "Content-Type", ctype, "Authorization", alice)
			assert.Equal(t, 415, a.status)
			assert.Equal(t, `{"statusCode":415,"code":"FST_ERR_CTP_INVALID_MEDIA_TYPE","error":"Unsupported Media Type","message":"Unsupported Media Type: `+ctype+`"}`, a.body)
		})
	}
	assert.Equal(t, `[]`, s.do(t, "GET", "/todos", alice, "", "").body, "nothing was created")
}

// TestImportLargeUpload: a 50 MiB upload is refused long before its end,
// whether its length is announced (the body limit) or not (the file
// limit, once 1 MiB has come).
func TestImportLargeUpload(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	const size = 50 << 20
	for _, announced := range []bool{true, false} {
		t.Run(fmt.Sprint("Content-Length ", announced), func(t *testing.T) {
			t.Parallel()
			head := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"todos.csv\"\r\n\r\ntitle,done\n"
			tail := "\r\n--b--\r\n"
			sent := &zeros{}
			req, err := http.NewRequest("POST", s.base+"/todos/import",
				io.MultiReader(strings.NewReader(head), io.LimitReader(sent, size), strings.NewReader(tail)))
			require.NoError(t, err)
			if announced {
				req.ContentLength = int64(len(head) + size + len(tail))
			} else {
				req.ContentLength = -1 // chunked
			}
			req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
			req.Header.Set("Authorization", alice)
			res, err := s.raw.Do(req)
			if err == nil { // the answer came before the connection was closed
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				assert.Equal(t, 413, res.StatusCode, string(b))
			}
			// The client got to write what the server read, and what the
			// sockets' buffers hold: far from 50 MiB.
			assert.Less(t, sent.n.Load(), int64(size/2))
		})
	}
}

// zeros reads as endless ASCII zeros ('0'), and counts what was read.
type zeros struct{ n atomic.Int64 }

func (z *zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	z.n.Add(int64(len(p)))
	return len(p), nil
}

// TestImportWithTheSessionCookie: the page's way in, CSRF included.
func TestImportWithTheSessionCookie(t *testing.T) {
	t.Parallel()
	s := startUsers(t)
	cookie := logIn(t, s, "alice", "tokenA")
	body, ctype := multipartFile(t, "file", "title,done\nMilk,\n")
	a := s.exchange(t, "POST", "/todos/import", body, "Cookie", cookie, "Content-Type", ctype, "Sec-Fetch-Site", "cross-site")
	assert.Equal(t, 403, a.status)
	assert.Equal(t, csrfRefused, a.body)
	a = s.exchange(t, "POST", "/todos/import", body, "Cookie", cookie, "Content-Type", ctype, "Sec-Fetch-Site", "same-origin")
	assert.Equal(t, 201, a.status)
	assert.Equal(t, `{"created":1}`, a.body)
}
