package app

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/burrow-go/burrow/httpx"
)

// maxQueryParams is the most query parameters a request may carry:
// net/url's own limit, past which url.ParseQuery returns no value at all.
// Burrow refuses such a request instead of letting its handlers read an
// empty query and fall back to defaults.
const maxQueryParams = 10000

// codeBadQuery is the code of the 400 answering a query that cannot be
// read whole.
const codeBadQuery = "ERR_BAD_QUERYSTRING"

var errTooManyQueryParams = httpx.ErrorBody{
	StatusCode: http.StatusBadRequest, Code: codeBadQuery, Error: http.StatusText(http.StatusBadRequest),
	Message: "querystring has more than " + strconv.Itoa(maxQueryParams) + " parameters",
}

// tooManyQueryParams counts parameters as net/url does (every '&' starts
// one, empty or not). Most queries are shorter than the limit and cost a
// length comparison.
func tooManyQueryParams(query string) bool {
	return len(query) >= maxQueryParams && strings.Count(query, "&")+1 > maxQueryParams
}
