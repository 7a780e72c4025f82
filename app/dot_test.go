package app_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDOT(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `digraph burrow {
	rankdir=TB;
	node [shape=box, fontname="Helvetica"];
	c0 [label="root\nrequest decorator \"answer\" int\nservice app_test.clock"];
	c1 [label="api\nprefix /api\nrequest decorator \"user\" string"];
	c0 -> c1;
	c1_w0 [label="auth (wrapped)", shape=note, style=dashed];
	c1 -> c1_w0 [style=dashed, arrowhead=none];
	c2 [label="v1\nprefix /api/v1"];
	c1 -> c2;
	c3 [label="admin\nrequest decorator \"role\" string"];
	c0 -> c3;
}
`, introspected(t).DOT())
}
