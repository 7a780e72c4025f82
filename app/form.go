package app

import (
	"io"
	"net/http"
	"net/url"
	"reflect"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/app/internal/inputfields"
	"github.com/burrow-go/burrow/internal/echo"
	"github.com/burrow-go/burrow/internal/errkind"

	"github.com/burrow-go/burrow/httpx"
)

// The media types a form body comes in.
const (
	mediaURLEncoded = "application/x-www-form-urlencoded"
	mediaMultipart  = "multipart/form-data"
	mediaJSON       = "application/json"
)

// codeBadForm is the code of the 400 answering a form body that cannot
// be read.
const codeBadForm = "ERR_BAD_FORM"

// errBadForm is that 400: what cannot be read, then why in the parser's
// words, cut after their first 1 KiB as every echo of the client's text
// is: they may repeat a line of the body whole (a part header of 300 KB
// made an answer of 1.5 MB).
func errBadForm(what string, err error) error {
	return &httpx.Error{StatusCode: http.StatusBadRequest, Code: codeBadForm,
		Message: what + ": " + echo.Cut(err.Error(), echo.Max), Err: err}
}

// readForm reads the body of a route whose In struct has form fields,
// after the onRequest and preParsing hooks (an authentication hook
// refuses a request before its body is read), within the route's body
// limit and time-out. A request without a body and without a media type
// is an empty form, which the fields' rules judge; a route without file
// fields takes the values as a JSON object too (see jsonForm); any other
// media type than a form's is a 415.
func (p *inputPlan) readForm(x *exchange) (url.Values, error) {
	req, rep := x.Request(), x.Reply()
	raw := req.Raw()
	ct := raw.Header.Get("Content-Type")
	if raw.ContentLength > p.limit {
		rep.Header()["Connection"] = closeHeader // the unread body makes the connection unusable
		return nil, errTooLarge
	}
	if absentBody(raw) && ct == "" {
		return nil, nil
	}
	mt := mediaType(ct)
	switch {
	case mt == mediaMultipart:
	case (mt == mediaURLEncoded || mt == mediaJSON) && len(p.fields.files) == 0: // a file needs a multipart body
	default:
		return nil, errMediaType(mt)
	}
	body := req.BodyReader()
	if body == nil {
		body = http.NoBody
	}
	if p.timeout > 0 && armBodyDeadline(rep.Raw(), raw, p.timeout) {
		defer clearReadDeadline(rep.Raw())
	}
	if mt == mediaMultipart {
		params, err := multipartParams(ct)
		if err != nil {
			return nil, err
		}
		lr := &limitedReader{r: body, n: p.limit}
		form, err := p.readMultipart(x, lr, params)
		if err == nil {
			// What follows the last boundary is read too: net/http
			// notices a client that goes away (and ends the request's
			// context) only once the body is read to its end.
			_, err = io.Copy(io.Discard, lr)
		}
		if err != nil {
			return nil, bodyError(rep, err)
		}
		x.Drained()
		return form, nil
	}
	buf := getBodyBuf()
	defer buf.release()
	buf.lr = limitedReader{r: body, n: p.limit}
	if err := buf.read(&buf.lr, raw.ContentLength); err != nil {
		return nil, bodyError(rep, err)
	}
	x.Drained()
	if mt == mediaJSON {
		return jsonForm(buf.Bytes(), p.fields.formValue)
	}
	form, err := url.ParseQuery(buf.String())
	if err != nil {
		return nil, errBadForm("form body is malformed", err)
	}
	return form, nil
}

// fileField is a file field of an In struct: the part's name, the
// field's path, and whether it takes every part of the name ([]*File).
type fileField struct {
	key  string
	path []int
	many bool
}

// isFileField reports whether f is a file field, which the text decoder
// leaves to the multipart reader.
func isFileField(f reflect.StructField) bool {
	_, isFile := fileType(f.Type)
	return isFile
}

// compileFiles lists the file fields of In struct t, refusing a file
// taken in a way Burrow cannot fill.
func compileFiles(t reflect.Type) ([]fileField, error) {
	var out []fileField
	for _, f := range inputfields.List(t, inputfields.Only("form")) {
		valid, isFile := fileType(f.Type)
		switch {
		case !isFile:
			continue
		case !valid:
			return nil, errkind.New(ErrInvalidInput, "%v.%s is a file of type %v: a file field is a *app.File (one part) or a []*app.File (every part of its name)",
				t, inputfields.GoName(t, f.Path), f.Type)
		case f.Tag.Get("default") != "":
			return nil, errkind.New(ErrInvalidInput, "%v.%s: a file takes no default", t, inputfields.GoName(t, f.Path))
		}
		out = append(out, fileField{key: f.Key, path: f.Path, many: f.Type == typeFileSlice})
	}
	return out, nil
}

// fileField is the file field named name, or nil.
func (fi *fieldsInput) fileField(name string) *fileField {
	for i := range fi.files {
		if fi.files[i].key == name {
			return &fi.files[i]
		}
	}
	return nil
}

// formValue reports whether a text field reads the form value name.
func (fi *fieldsInput) formValue(name string) bool { return fi.sources[srcForm].dec.Has(name) }

// setFile stores f in ff, a file field of in (the decoded value): a
// second part for a single file is a 400.
func (fi *fieldsInput) setFile(in any, ff *fileField, f *File) error {
	v := reflect.ValueOf(in).Elem().FieldByIndex(ff.path)
	switch {
	case ff.many:
		v.Set(reflect.Append(v, reflect.ValueOf(f)))
	case !v.IsNil():
		return validationError([]httpx.FieldError{{Path: textSources[srcForm].root + "/" + ff.key, Rule: "type",
			Message: "must be one file, not several"}})
	default:
		v.Set(reflect.ValueOf(f))
	}
	return nil
}

// removeFiles removes the temporary files of the files the request's
// decoded value holds. It runs when the request ends, however it ends.
func (fi *fieldsInput) removeFiles(x *exchange, log *zap.Logger) {
	in := x.Input()[inputFields]
	if in == nil {
		return
	}
	v := reflect.ValueOf(in).Elem()
	for i := range fi.files {
		ff := &fi.files[i]
		fv := v.FieldByIndex(ff.path)
		if !ff.many {
			removeFile(fv.Interface().(*File), log)
			continue
		}
		for _, f := range fv.Interface().([]*File) {
			removeFile(f, log)
		}
	}
}

func removeFile(f *File, log *zap.Logger) {
	if err := f.remove(); err != nil {
		log.Error("cannot remove an uploaded file", zap.Error(err))
	}
}
