package shed

import (
	"encoding/json"
	"net/http"

	"github.com/burrow-go/burrow/httpx"
)

var jsonType = []string{"application/json; charset=utf-8"}
var closeConn = []string{"close"}

var shedBody = func() json.RawMessage {
	b, _ := json.Marshal(httpx.ErrorBody{StatusCode: http.StatusServiceUnavailable,
		Error: http.StatusText(http.StatusServiceUnavailable), Message: "Service under pressure"})
	return b
}()

// shed answers req 503, or lets OnPressure answer.
func (s *Shedder) shed(req *httpx.Request, rep *httpx.Reply, r Reason) error {
	if s.onPressure != nil {
		return s.onPressure(req, rep, r)
	}
	h := rep.Header()
	h["Retry-After"] = s.retryAfter
	h["Content-Type"] = jsonType
	if req.Raw().ProtoMajor == 1 {
		h["Connection"] = closeConn
	}
	return rep.Code(http.StatusServiceUnavailable).Send(shedBody)
}
