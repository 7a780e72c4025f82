package app_test

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// TestErrorAfterAClientLeftIsNotAnError: a stream whose client went away
// ends with an error (the write's, or the context's), which the handler
// returns; that is the client's doing, so it is logged at debug, or every
// client that drops a stream would write an error line. An error after a
// reply the client still reads is the server's, logged at error.
func TestErrorAfterAClientLeftIsNotAnError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		leave func(t *testing.T, s *app.Server) // asks for /stream, reads a little, leaves
	}{
		{"inject", func(t *testing.T, s *app.Server) {
			res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/stream", nil))
			require.NoError(t, err)
			_, err = io.ReadFull(res.Body, make([]byte, 5))
			require.NoError(t, err)
			require.NoError(t, res.Body.Close())
		}},
		{"socket", func(t *testing.T, s *app.Server) {
			c := dial(t, serve(t, s))
			_, err := io.WriteString(c, "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
			require.NoError(t, err)
			_, err = bufio.NewReader(c).ReadString('\n')
			require.NoError(t, err)
			require.NoError(t, c.Close())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			core, logs := observer.New(zapcore.DebugLevel)
			s := app.New(app.WithLogger(zap.New(core)))
			done := make(chan struct{}, 1)
			require.NoError(t, s.AddHook(app.OnResponse, func() { done <- struct{}{} }))
			require.NoError(t, s.Get("/stream", func(rep *httpx.Reply) error {
				return rep.Stream(endless{})
			}))
			require.NoError(t, s.Get("/late", func(rep *httpx.Reply) error {
				if err := rep.Send("sent"); err != nil {
					return err
				}
				return errors.New("the audit write failed")
			}))
			tt.leave(t, s)
			<-done
			after := logs.FilterMessage("error after the reply was sent")
			require.Equal(t, 1, after.Len(), "logged once: %v", logs.All())
			assert.Equal(t, zapcore.DebugLevel, after.All()[0].Level, "the client left: %v", after.All()[0].ContextMap())

			status, body, _ := do(t, s, "GET", "/late")
			assert.Equal(t, http.StatusOK, status)
			assert.Equal(t, "sent", body)
			<-done
			late := logs.FilterMessage("error after the reply was sent").FilterLevelExact(zapcore.ErrorLevel).All()
			require.Len(t, late, 1, "the server's own failure is an error")
			assert.Equal(t, "the audit write failed", late[0].ContextMap()["error"])
		})
	}
}
