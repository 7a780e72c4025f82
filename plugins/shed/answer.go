package shed

import (
	"net/http"

	"github.com/burrow-go/burrow/httpx"
)

var closeConn = []string{"close"}

// errShed is a shed request's answer, which the server writes in its
// error format.
var errShed = httpx.NewError(http.StatusServiceUnavailable, "", "Service under pressure")

// shed answers req 503, or lets OnPressure answer.
func (s *Shedder) shed(req *httpx.Request, rep *httpx.Reply, r Reason) error {
	if s.onPressure != nil {
		return s.onPressure(req, rep, r)
	}
	h := rep.Header()
	h["Retry-After"] = s.retryAfter
	if req.Raw().ProtoMajor == 1 {
		h["Connection"] = closeConn
	}
	return rep.SendError(errShed)
}
