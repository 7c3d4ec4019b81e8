package memlimit

import (
	"math"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	total := Total()
	if total <= 0 {
		t.Fatalf("Total() = %d", total)
	}
	for _, c := range []struct {
		n, each int64
		want    string // "" for no error
	}{
		{0, 100, ""},
		{1000, 56, ""},
		{total / 8, 8, ""},
		{total/8 + 1, 8, "would need"},
		{999999999999, 56, "would need 50.9 TiB (56 B each)"},
		{math.MaxInt64, 16, "more than 8 EiB"},
		{-5, 8, "-5 is negative"},
	} {
		err := Check("nodes", c.n, c.each)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Check(%d, %d) = %v, want %q", c.n, c.each, err, c.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for b, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 29: "1.5 GiB", math.MaxInt64: "8.0 EiB"} {
		if got := Bytes(b); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", b, got, want)
		}
	}
}
