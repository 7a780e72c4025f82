package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strconv"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
)

// MultipartLimits bound what a multipart/form-data body may hold, for
// the routes whose In struct has form fields. Each zero field takes the
// value of the nearest context that sets it (SetMultipartLimits), else
// the default; the body limit (SetBodyLimit, BodyLimit, WithMaxBodyBytes)
// bounds the whole body besides. A body past a limit is refused with 413
// as soon as the limit is passed: nothing more of it is read, and the
// connection is closed.
type MultipartLimits struct {
	// FileBytes is the most bytes of one file (default 1 MiB).
	FileBytes int64
	// ValueBytes is the most bytes of one value that is not a file
	// (default 64 KiB).
	ValueBytes int64
	// Parts is the most parts the body may have, whatever they hold
	// (default 1000).
	Parts int
	// MemoryBytes is how many bytes of files a request keeps in memory
	// (default 1 MiB): a file that does not fit in what is left is
	// written to a temporary file instead, removed when the request ends.
	MemoryBytes int64
	// TempDir is the directory of those temporary files (default
	// os.TempDir()).
	TempDir string
}

// The defaults of MultipartLimits.
const (
	DefaultMultipartFileBytes   = 1 << 20
	DefaultMultipartValueBytes  = 64 << 10
	DefaultMultipartParts       = 1000
	DefaultMultipartMemoryBytes = 1 << 20
)

// check refuses negative limits.
func (l MultipartLimits) check() error {
	if l.FileBytes < 0 || l.ValueBytes < 0 || l.Parts < 0 || l.MemoryBytes < 0 {
		return errkind.New(ErrInvalidInput, "invalid multipart limits %+v: a limit is 0 (inherited) or more", l)
	}
	return nil
}

// under fills the zero fields of l from outer's.
func (l MultipartLimits) under(outer MultipartLimits) MultipartLimits {
	if l.FileBytes == 0 {
		l.FileBytes = outer.FileBytes
	}
	if l.ValueBytes == 0 {
		l.ValueBytes = outer.ValueBytes
	}
	if l.Parts == 0 {
		l.Parts = outer.Parts
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = outer.MemoryBytes
	}
	if l.TempDir == "" {
		l.TempDir = outer.TempDir
	}
	return l
}

var defaultMultipartLimits = MultipartLimits{
	FileBytes:   DefaultMultipartFileBytes,
	ValueBytes:  DefaultMultipartValueBytes,
	Parts:       DefaultMultipartParts,
	MemoryBytes: DefaultMultipartMemoryBytes,
}

// SetMultipartLimits sets the multipart limits of this context's routes
// and its descendants' (unless they set their own): each field that is
// not zero replaces the one inherited.
func (s *Server) SetMultipartLimits(l MultipartLimits) error {
	return s.mutate("multipart limits", func() error {
		if err := l.check(); err != nil {
			return fmt.Errorf("in %s: %w", s.Path(), err)
		}
		s.n.multipart = l.under(s.n.multipart)
		return nil
	})
}

// WithMultipartLimits sets the multipart limits of one route: each
// field that is not zero replaces its context's.
func WithMultipartLimits(l MultipartLimits) RouteOption {
	return func(r *routeDef) {
		if err := l.check(); err != nil {
			r.fail(fmt.Errorf("has %w", err))
			return
		}
		r.multipart = l.under(r.multipart)
	}
}

// The answers to a multipart body past its limits.
func errFileTooLarge(name string, limit int64) error {
	return &httpx.Error{StatusCode: http.StatusRequestEntityTooLarge, Code: "FST_REQ_FILE_TOO_LARGE",
		Message: "file " + strconv.Quote(name) + " is larger than " + strconv.FormatInt(limit, 10) + " bytes", Err: ErrBodyTooLarge}
}

func errValueTooLarge(name string, limit int64) error {
	return &httpx.Error{StatusCode: http.StatusRequestEntityTooLarge, Code: "ERR_FORM_VALUE_TOO_LARGE",
		Message: "form value " + strconv.Quote(name) + " is larger than " + strconv.FormatInt(limit, 10) + " bytes", Err: ErrBodyTooLarge}
}

func errTooManyParts(limit int) error {
	return &httpx.Error{StatusCode: http.StatusRequestEntityTooLarge, Code: "FST_PARTS_LIMIT",
		Message: "multipart body has more than " + strconv.Itoa(limit) + " parts", Err: ErrBodyTooLarge}
}

// partLimit is the reader of part name, a file's or a value's, bounded
// to limit bytes: past them it fails with the 413 of its kind, having
// read one byte more than limit at most.
type partLimit struct {
	limitedReader
	limit int64
	name  string
	file  bool
}

func (l *partLimit) Read(p []byte) (int, error) {
	n, err := l.limitedReader.Read(p)
	if l.n < 0 { // this part's limit, not the body's
		return n, l.tooLarge()
	}
	return n, err
}

func (l *partLimit) tooLarge() error {
	if l.file {
		return errFileTooLarge(l.name, l.limit)
	}
	return errValueTooLarge(l.name, l.limit)
}

// multipartRead is the reading of one multipart body: the values it
// found, the files it kept, and what is left of the request's memory.
type multipartRead struct {
	lim    MultipartLimits
	fi     *fieldsInput
	values url.Values
	memory int64
}

// readMultipart reads the parts of body, whose media type parameters
// are params, within the route's limits: the values of text fields into
// the form it returns, files into the In struct's file fields, every
// other part read and dropped. The files it kept, even when it fails,
// are in the In struct's value, whose files are removed when the
// request ends.
func (p *inputPlan) readMultipart(x *exchange, body io.Reader, params map[string]string) (url.Values, error) {
	boundary := params["boundary"]
	if boundary == "" {
		return nil, &httpx.Error{StatusCode: http.StatusBadRequest, Code: codeBadForm,
			Message: "multipart body has no boundary in its Content-Type"}
	}
	m := &multipartRead{lim: p.multipart, fi: p.fields, memory: p.multipart.MemoryBytes}
	return m.read(x, multipart.NewReader(body, boundary))
}

func (m *multipartRead) read(x *exchange, mr *multipart.Reader) (url.Values, error) {
	in := x.Input()[inputFields]
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return m.values, nil
		}
		if err != nil {
			return nil, multipartError(err)
		}
		if parts == m.lim.Parts {
			return nil, errTooManyParts(m.lim.Parts)
		}
		name := part.FormName()
		switch ff := m.fi.fileField(name); {
		case ff != nil:
			f, err := m.readFile(part, name)
			if err != nil {
				return nil, err
			}
			if f != nil {
				if err := m.fi.setFile(in, ff, f); err != nil {
					_ = f.remove() // not in the In struct, where removeFiles finds the others
					return nil, err
				}
			}
		case m.fi.formValue(name):
			v, err := m.readValue(part, name)
			if err != nil {
				return nil, err
			}
			if m.values == nil {
				m.values = url.Values{}
			}
			m.values[name] = append(m.values[name], v)
		default:
			// A part no field asks for is read and dropped: only the
			// body limit bounds it.
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, multipartError(err)
			}
		}
	}
}

// readValue reads a text part whole.
func (m *multipartRead) readValue(part *multipart.Part, name string) (string, error) {
	var b bytes.Buffer
	if _, err := b.ReadFrom(&partLimit{limitedReader: limitedReader{r: part, n: m.lim.ValueBytes}, limit: m.lim.ValueBytes, name: name}); err != nil {
		return "", multipartError(err)
	}
	return b.String(), nil
}

// readFile reads a file part, in memory while it fits in what is left of
// the request's memory, in a temporary file past that. A part without a
// file name and without content is what a browser sends for a file
// input left empty: no file (nil).
func (m *multipartRead) readFile(part *multipart.Part, name string) (*File, error) {
	r := &partLimit{limitedReader: limitedReader{r: part, n: m.lim.FileBytes}, limit: m.lim.FileBytes, name: name, file: true}
	f := &File{Filename: baseName(partFileName(part)), ContentType: part.Header.Get("Content-Type")}
	var b bytes.Buffer
	n, err := io.CopyN(&b, r, m.memory+1)
	switch {
	case errors.Is(err, io.EOF):
		if n == 0 && f.Filename == "" {
			return nil, nil
		}
		m.memory -= n
		f.data, f.Size = b.Bytes(), n
		return f, nil
	case err != nil:
		return nil, multipartError(err)
	}
	// Past the memory left: the rest goes to disk, what was read first.
	tmp, err := os.CreateTemp(m.lim.TempDir, "burrow-upload-*")
	if err != nil {
		return nil, errSpool(err)
	}
	f.path = tmp.Name()
	w := &spoolWriter{f: tmp}
	written, err := b.WriteTo(w)
	if err == nil {
		var rest int64
		rest, err = io.Copy(w, r)
		written += rest
	}
	if cerr := tmp.Close(); w.err == nil && cerr != nil {
		w.err = cerr
	}
	switch {
	case w.err != nil:
		err = errSpool(w.err)
	case err != nil:
		err = multipartError(err)
	}
	if err != nil {
		_ = f.remove()
		return nil, err
	}
	f.Size = written
	return f, nil
}

// spoolWriter writes to a temporary file, keeping its error apart from
// the part's: a disk that fails is the server's fault, not the client's.
type spoolWriter struct {
	f   *os.File
	err error
}

func (w *spoolWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// errSpool is the 500 answering a file that could not be written to
// disk; the client is not told where.
func errSpool(err error) error {
	return &httpx.Error{StatusCode: http.StatusInternalServerError, Message: "cannot keep an uploaded file",
		Err: fmt.Errorf("cannot keep an uploaded file: %w", err)}
}

// multipartError is the answer to err, met reading a multipart body: a
// limit's 413 or a time-out as bodyError says; anything else is a body
// that is not valid multipart (or ended early), a 400.
func multipartError(err error) error {
	var he *httpx.Error
	var ne interface{ Timeout() bool }
	switch {
	case errors.As(err, &he), errors.Is(err, ErrBodyTooLarge), errors.As(err, &ne) && ne.Timeout():
		return err // bodyError tells them apart
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &httpx.Error{StatusCode: http.StatusBadRequest, Code: codeBadForm,
			Message: "multipart body ended early", Err: err}
	}
	return errBadForm("multipart body is malformed", err)
}

// multipartParams parses a multipart Content-Type's parameters.
func multipartParams(ct string) (map[string]string, error) {
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil, errBadForm("multipart Content-Type is malformed", err)
	}
	return params, nil
}
