package cache

import (
	"encoding/json"
	"net/http"
	"time"
)

// entry is a stored answer. A key's first entry may instead be the list
// of the request headers its answers vary by (Vary), under which the
// variants are stored.
type entry struct {
	Vary   []string    `json:"vary,omitempty"`   // a key's Vary names, canonical, for the variant keys
	Header http.Header `json:"header,omitempty"` // the answer's headers
	Body   []byte      `json:"body,omitempty"`
	Stored int64       `json:"stored,omitempty"` // Unix seconds, for Age
}

func (e *entry) encode() ([]byte, error) { return json.Marshal(e) }

func decode(b []byte) (*entry, error) {
	e := &entry{}
	if err := json.Unmarshal(b, e); err != nil {
		return nil, err
	}
	return e, nil
}

// age is the entry's age in whole seconds at now.
func (e *entry) age(now time.Time) int64 { return max(0, now.Unix()-e.Stored) }

// unstored are the headers a stored answer does not keep: hop-by-hop
// fields, and the ones net/http writes per answer.
var unstored = []string{"Connection", "Keep-Alive", "Transfer-Encoding", "Date", "Age", "Set-Cookie", "Trailer", "Upgrade"}
