package app

import (
	"net/http"
	"net/url"

	"github.com/burrow-go/burrow/httpx"
)

// The media types a form body comes in.
const (
	mediaURLEncoded = "application/x-www-form-urlencoded"
	mediaMultipart  = "multipart/form-data"
)

// codeBadForm is the code of the 400 answering a form body that cannot
// be read.
const codeBadForm = "ERR_BAD_FORM"

// readForm reads the body of a route whose In struct has form fields,
// after the onRequest and preParsing hooks (an authentication hook
// refuses a request before its body is read), within the route's body
// limit and time-out. A request without a body and without a media type
// is an empty form, which the fields' rules judge; any other media type
// than a form's is a 415.
func (p *inputPlan) readForm(x *httpx.Exchange) (url.Values, error) {
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
	if mt := mediaType(ct); mt != mediaURLEncoded {
		return nil, errMediaType(mt)
	}
	body := req.BodyReader()
	if body == nil {
		body = http.NoBody
	}
	if p.timeout > 0 && armBodyDeadline(rep.Raw(), raw, p.timeout) {
		defer clearReadDeadline(rep.Raw())
	}
	buf := getBodyBuf()
	defer buf.release()
	buf.lr = limitedReader{r: body, n: p.limit}
	if err := buf.read(&buf.lr, raw.ContentLength); err != nil {
		return nil, bodyError(rep, err)
	}
	x.Drained()
	form, err := url.ParseQuery(buf.String())
	if err != nil {
		return nil, &httpx.Error{StatusCode: http.StatusBadRequest, Code: codeBadForm,
			Message: "form body is malformed: " + err.Error(), Err: err}
	}
	return form, nil
}
