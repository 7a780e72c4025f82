package tracking

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lenient is a writer that takes any status, as a test recorder or a
// wrapper might, where net/http would panic.
type lenient struct{ header http.Header }

func (l *lenient) Header() http.Header         { return l.header }
func (l *lenient) WriteHeader(int)             {}
func (l *lenient) Write(p []byte) (int, error) { return len(p), nil }

func TestWriterRecordsWhatReachedTheClient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		write   func(w *Writer)
		status  int
		size    int64
		started bool
	}{
		{"nothing", func(*Writer) {}, 0, 0, false},
		{"informational status only", func(w *Writer) { w.WriteHeader(http.StatusEarlyHints) }, 0, 0, false},
		{"informational then final", func(w *Writer) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusNotFound)
		}, http.StatusNotFound, 0, true},
		{"the first final status stays", func(w *Writer) {
			w.WriteHeader(http.StatusAccepted)
			w.WriteHeader(http.StatusInternalServerError)
		}, http.StatusAccepted, 0, true},
		{"switching protocols begins it", func(w *Writer) { w.WriteHeader(http.StatusSwitchingProtocols) }, http.StatusSwitchingProtocols, 0, true},
		{"a write begins it with 200", func(w *Writer) { _, _ = w.Write([]byte("hello")) }, http.StatusOK, 5, true},
		{"writes add up", func(w *Writer) {
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte("ab"))
			_, _ = w.Write([]byte("cde"))
		}, http.StatusCreated, 5, true},
		{"a flush begins it with 200", func(w *Writer) { w.Flush() }, http.StatusOK, 0, true},
		{"a read-from begins it with 200", func(w *Writer) {
			n, err := w.ReadFrom(strings.NewReader("hello"))
			assert.NoError(t, err)
			assert.EqualValues(t, 5, n)
		}, http.StatusOK, 5, true},
		{"a read-from of nothing begins it too", func(w *Writer) { _, _ = w.ReadFrom(strings.NewReader("")) }, http.StatusOK, 0, true},
		{"a read-from keeps the status written", func(w *Writer) {
			w.WriteHeader(http.StatusPartialContent)
			_, _ = w.ReadFrom(strings.NewReader("abc"))
			_, _ = w.Write([]byte("de"))
		}, http.StatusPartialContent, 5, true},
		{"a failed hijack begins nothing", func(w *Writer) {
			_, _, err := w.Hijack()
			assert.ErrorIs(t, err, http.ErrNotSupported)
		}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			w := &Writer{W: rec}
			tt.write(w)
			assert.Equal(t, tt.started, w.Started, "started")
			assert.Equal(t, tt.size, w.Size, "size")
			if tt.started {
				assert.Equal(t, tt.status, w.Status(), "status")
			}
		})
	}
}

func TestWriterKeepsAnImpossibleStatusOutOfTheRecord(t *testing.T) {
	t.Parallel()
	w := &Writer{W: &lenient{header: http.Header{}}}
	w.WriteHeader(1000)
	assert.False(t, w.Started, "a status net/http refuses does not begin the response")
	w.Record(0)
	assert.False(t, w.Started, "nor is one recorded as written around the writer")
	w.WriteHeader(http.StatusTeapot)
	assert.True(t, w.Started)
	assert.Equal(t, http.StatusTeapot, w.Status())
}

func TestWriterUnwrapsAndResets(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	w := &Writer{W: rec}
	_, err := w.Write([]byte("x"))
	require.NoError(t, err)
	assert.Same(t, rec, w.Unwrap().(*httptest.ResponseRecorder))
	assert.True(t, errors.Is(http.NewResponseController(w).SetWriteDeadline(time.Time{}), http.ErrNotSupported),
		"deadlines go to the writer underneath, which has none")

	next := httptest.NewRecorder()
	w.Reset(next)
	assert.Equal(t, Writer{W: next}, *w)
}

// readerFrom is a writer underneath with its own ReadFrom (net/http's
// sends a file with sendfile), recording that it was used.
type readerFrom struct {
	lenient
	used bool
}

func (r *readerFrom) ReadFrom(src io.Reader) (int64, error) {
	r.used = true
	return io.Copy(io.Discard, src)
}

// ReadFrom hands the copy to the writer underneath when it has a
// ReadFrom of its own, so that io.Copy into the writer (ServeContent,
// http.FileServer) keeps net/http's sendfile; otherwise it copies through
// its Write, without calling itself back. Either way the bytes count.
func TestWriterReadsFromThroughTheWriterUnderneath(t *testing.T) {
	t.Parallel()
	src := strings.Repeat("x", 100<<10)

	rf := &readerFrom{lenient: lenient{header: http.Header{}}}
	w := &Writer{W: rf}
	var _ io.ReaderFrom = w
	n, err := io.CopyN(w, strings.NewReader(src), int64(len(src))) // as http.ServeContent copies
	require.NoError(t, err)
	assert.True(t, rf.used, "the writer underneath's ReadFrom")
	assert.EqualValues(t, len(src), n)
	assert.EqualValues(t, len(src), w.Size)

	rec := httptest.NewRecorder() // no ReadFrom
	w = &Writer{W: rec}
	n, err = w.ReadFrom(strings.NewReader(src))
	require.NoError(t, err)
	assert.EqualValues(t, len(src), n)
	assert.EqualValues(t, len(src), w.Size)
	assert.Equal(t, src, rec.Body.String())
}

// hijackable is a writer underneath whose connection can be taken over.
type hijackable struct{ lenient }

func (h *hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, _ := net.Pipe()
	return c, nil, nil
}

// A hijack that succeeded is recorded as such, with 101 unless a status
// had gone; a failed one records nothing.
func TestWriterRecordsAHijack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		w        http.ResponseWriter
		before   int // a status written before the hijack, or 0
		hijacked bool
		status   int
	}{
		{"taken over", &hijackable{lenient{header: http.Header{}}}, 0, true, http.StatusSwitchingProtocols},
		{"taken over after a status", &hijackable{lenient{header: http.Header{}}}, http.StatusOK, true, http.StatusOK},
		{"not supported", httptest.NewRecorder(), 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := &Writer{W: tt.w}
			if tt.before != 0 {
				w.WriteHeader(tt.before)
			}
			c, _, err := w.Hijack()
			if c != nil {
				c.Close()
			}
			assert.Equal(t, tt.hijacked, err == nil)
			assert.Equal(t, tt.status, w.Status(), "status")
		})
	}
}

// Every reply and every request through middleware holds a Writer: what
// it records must fit beside the status, in four words.
func TestWriterIsFourWords(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 4*unsafe.Sizeof(uintptr(0)), unsafe.Sizeof(Writer{}))
}
