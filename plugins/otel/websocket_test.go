package otel_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/burrow-go/burrow/plugins/otel"
)

func TestWebSocketsCountsConnectionsAndMessages(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	w, err := otel.NewWebSockets(mp)
	require.NoError(t, err)
	w.Connections("/rooms/:room", "root > chat", 1)
	w.Connections("/rooms/:room", "root > chat", 1)
	w.Connections("/rooms/:room", "root > chat", -1)
	w.Message("/rooms/:room", "root > chat", "out")
	w.Message("/rooms/:room", "root > chat", "out")
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	got := map[string]int64{}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
			route, _ := dp.Attributes.Value(attribute.Key("http.route"))
			dir, _ := dp.Attributes.Value(attribute.Key("websocket.direction"))
			got[m.Name+" "+route.AsString()+" "+dir.AsString()] = dp.Value
		}
	}
	assert.Equal(t, map[string]int64{
		"websocket.connections.open /rooms/:room ": 1,
		"websocket.messages /rooms/:room out":      2,
	}, got)
}
