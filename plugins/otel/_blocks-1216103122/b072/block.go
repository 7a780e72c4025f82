package b072
import (
	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/otel"
)
//line /work/wt/caching/docs/tracing.md:128
func traced(s *app.Server) error {
	return s.Register(otel.Plugin(otel.TrustIncoming())) // behind the gateway
}
