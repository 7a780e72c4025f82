package app_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
)

// A refused request (4xx) is the client's doing: it is logged at debug,
// with its status and reason, so that a flood of bad requests writes no
// line at the levels servers run at. A 5xx stays at error.
func TestRefusalsAreLoggedAtDebug(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body    string
		status  int
		level   zapcore.Level
		message string
	}{
		{`{"tags":["go"]}`, http.StatusBadRequest, zapcore.DebugLevel, "400 FST_ERR_VALIDATION: body/message is required"},
		{`{"message":`, http.StatusBadRequest, zapcore.DebugLevel, "400 FST_ERR_CTP_INVALID_JSON_BODY: unexpected end of JSON input"},
		{`{"message":"fail"}`, http.StatusInternalServerError, zapcore.ErrorLevel, "the database is down"},
	} {
		t.Run(tt.body, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.DebugLevel)
			s := app.New(app.WithLogger(zap.New(core)))
			require.NoError(t, s.Post("/echo", func(b app.Body[echoBody]) (echoBody, error) {
				if b.Value.Message == "fail" {
					return echoBody{}, assert.AnError
				}
				return b.Value, nil
			}))
			require.NoError(t, s.SetErrorHandler(func(err error) error {
				if err == assert.AnError {
					return errDatabase
				}
				return err
			}))
			req := httptest.NewRequest("POST", "/echo", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			res, err := s.Inject(req)
			require.NoError(t, err)
			assert.Equal(t, tt.status, res.StatusCode)
			entries := logs.FilterMessage(tt.message).All()
			require.Len(t, entries, 1, "%v", logs.All())
			assert.Equal(t, tt.level, entries[0].Level)
			assert.EqualValues(t, tt.status, entries[0].ContextMap()["statusCode"])
		})
	}
}

type databaseError struct{}

func (databaseError) Error() string { return "the database is down" }

var errDatabase = databaseError{}
