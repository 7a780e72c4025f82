package apptest

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/textproto"
)

// Multipart is a multipart/form-data body being built, for a test that
// uploads: values and files, sent in the order they were added. The zero
// value is an empty form.
//
//	var m apptest.Multipart
//	m.Field("dry_run", "true").File("file", "todos.csv", "text/csv", []byte("title\nmilk\n"))
//	res := apptest.Do(t, s, "POST", "/todos/import", m.Body(), "Content-Type", m.ContentType())
type Multipart struct {
	parts    []part
	boundary string
}

type part struct {
	name, filename, contentType string
	file                        bool
	content                     []byte
}

// Field adds the value value named name, as a browser sends a text input.
func (m *Multipart) Field(name, value string) *Multipart {
	m.parts = append(m.parts, part{name: name, content: []byte(value)})
	return m
}

// File adds a file part named field, with the client's file name
// filename and Content-Type contentType (application/octet-stream when
// empty). A file input left empty is File(field, "", "", nil), as a
// browser sends it.
func (m *Multipart) File(field, filename, contentType string, content []byte) *Multipart {
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	m.parts = append(m.parts, part{name: field, filename: filename, contentType: contentType, file: true, content: content})
	return m
}

// ContentType is the body's Content-Type, with its boundary.
func (m *Multipart) ContentType() string {
	return "multipart/form-data; boundary=" + m.boundaryOnce()
}

// Body returns the encoded body, a new reader at each call, so one form
// can be sent twice.
func (m *Multipart) Body() io.Reader {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	// A boundary multipart.NewWriter made cannot be refused, and writes
	// to a bytes.Buffer do not fail: Body has no error to return.
	_ = w.SetBoundary(m.boundaryOnce())
	for _, p := range m.parts {
		var pw io.Writer
		if p.file {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", multipart.FileContentDisposition(p.name, p.filename))
			h.Set("Content-Type", p.contentType)
			pw, _ = w.CreatePart(h)
		} else {
			pw, _ = w.CreateFormField(p.name)
		}
		_, _ = pw.Write(p.content)
	}
	_ = w.Close()
	return &buf
}

func (m *Multipart) boundaryOnce() string {
	if m.boundary == "" {
		m.boundary = multipart.NewWriter(io.Discard).Boundary()
	}
	return m.boundary
}
