package semver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionRanges(t *testing.T) {
	tests := []struct {
		rng string
		in  []string
		out []string
	}{
		{"*", []string{"0.0.1", "9.9.9"}, nil},
		{"0.4.x", []string{"0.4.0", "0.4.9"}, []string{"0.3.9", "0.5.0"}},
		{"1.x", []string{"1.0.0", "1.9.9"}, []string{"0.9.9", "2.0.0"}},
		{"1.2.3", []string{"1.2.3"}, []string{"1.2.2", "1.2.4"}},
		{"=1.2", []string{"1.2.0", "1.2.7"}, []string{"1.3.0"}},
		{"^1.2.3", []string{"1.2.3", "1.9.0"}, []string{"1.2.2", "2.0.0"}},
		{"^0.4.1", []string{"0.4.1", "0.4.9"}, []string{"0.4.0", "0.5.0"}},
		{"^0.0.3", []string{"0.0.3"}, []string{"0.0.4", "0.0.2"}},
		{"^0.x", []string{"0.0.1", "0.9.0"}, []string{"1.0.0"}},
		{"~0.4.1", []string{"0.4.1", "0.4.5"}, []string{"0.5.0", "0.4.0"}},
		{"~1", []string{"1.0.0", "1.5.0"}, []string{"2.0.0"}},
		{">=0.3.0 <1.0.0", []string{"0.3.0", "0.9.9"}, []string{"0.2.9", "1.0.0"}},
		{">1.2 <=2", []string{"1.3.0", "2.9.0"}, []string{"1.2.9", "3.0.0"}},
		{"1.x || >=3", []string{"1.5.0", "3.0.0", "7.0.0"}, []string{"2.0.0", "0.1.0"}},
		{"v0.4.0", []string{"0.4.0"}, []string{"0.4.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.rng, func(t *testing.T) {
			c, err := ParseRange(tt.rng)
			require.NoError(t, err)
			for _, v := range tt.in {
				assert.True(t, c.Allows(MustParse(v)), "%s allows %s", tt.rng, v)
			}
			for _, v := range tt.out {
				assert.False(t, c.Allows(MustParse(v)), "%s refuses %s", tt.rng, v)
			}
		})
	}
}

func TestInvalidVersionRanges(t *testing.T) {
	for _, rng := range []string{"", "||", "banana", ">=1.x.2", "1.2.3.4", "01.2", "1.-2", ">*", "^"} {
		_, err := ParseRange(rng)
		assert.Error(t, err, "%q", rng)
	}
}
