package river_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

func TestUIIsGuardedByItsContext(t *testing.T) {
	t.Parallel()
	j := sqliteJobs(sqliteDB(t), testConfig())
	s := mailServer(t, j, &outbox{sent: make(chan string, 1)})
	require.NoError(t, s.Register(func(admin *app.Server) error {
		if err := admin.AddHook(app.OnRequest, func(req *httpx.Request) error {
			if req.Header("X-Admin") != "yes" {
				return httpx.NewError(401, "UNAUTHORIZED", "admins only")
			}
			return nil
		}); err != nil {
			return err
		}
		return j.MountUI(admin, "/jobs")
	}, app.Name("admin"), app.Prefix("/admin")))
	require.NoError(t, s.Ready())
	closeServer(t, s)
	_, err := j.Client().Insert(context.Background(), mailArgs{To: "a@example.com"}, &river.InsertOpts{Queue: "unworked"})
	require.NoError(t, err)

	get := func(path string, admin bool) (int, string) {
		req := httptest.NewRequest("GET", path, nil)
		if admin {
			req.Header.Set("X-Admin", "yes")
		}
		res, err := s.Inject(req)
		require.NoError(t, err)
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(b)
	}
	status, _ := get("/admin/jobs/", false)
	assert.Equal(t, 401, status, "the context's authentication guards the UI")
	status, body := get("/admin/jobs/", true)
	assert.Equal(t, 200, status)
	assert.Contains(t, body, "<html")
	status, body = get("/admin/jobs/api/jobs?state=available", true)
	require.Equal(t, 200, status, body)
	var list struct {
		Data []struct {
			Kind  string `json:"kind"`
			Queue string `json:"queue"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	require.Len(t, list.Data, 1)
	assert.Equal(t, "mail", list.Data[0].Kind)
}
