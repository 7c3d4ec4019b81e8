package frame

import (
	"path/filepath"
	"runtime/debug"
	"testing"
)

func TestBuildOf(t *testing.T) {
	rev := "3f9c2a1b7d4e5f60718293a4b5c6d7e8f9012345"
	for _, c := range []struct {
		name     string
		settings []debug.BuildSetting
		ok       bool
		linked   string
		want     string
	}{
		{"no build information", nil, false, "", Version},
		{"no vcs", []debug.BuildSetting{{Key: "-trimpath", Value: "true"}}, true, "", Version},
		{"clean", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}, true, "", Version + " 3f9c2a1b7d4e"},
		{"dirty", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}, true, "", Version + " 3f9c2a1b7d4e+dirty"},
		{"linked, worktree", []debug.BuildSetting{{Key: "-trimpath", Value: "true"}}, true, "0123456789ab+dirty", Version + " 0123456789ab+dirty"},
		{"vcs wins over linked", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}}, true, "0123456789ab", Version + " 3f9c2a1b7d4e"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := buildOf(&debug.BuildInfo{Settings: c.settings}, c.ok, c.linked); got != c.want {
				t.Errorf("buildOf = %q, want %q", got, c.want)
			}
		})
	}
}

// A frame's run log records the build that wrote it, and reads it back.
func TestRunLogRecordsBuild(t *testing.T) {
	for _, given := range []string{"", "0.1.0 0123456789ab"} {
		path := filepath.Join(t.TempDir(), "t.parquet")
		tb := &Table{Meta: Meta{Estimator: "x", WallSeconds: 1.5, Build: given}, Columns: []Column{Int64Column("a", []int64{1, 2})}}
		if err := WriteTable(path, tb); err != nil {
			t.Fatal(err)
		}
		got, err := ReadTable(path)
		if err != nil {
			t.Fatal(err)
		}
		want := given
		if want == "" {
			want = Build()
		}
		if got.Meta.Build != want {
			t.Errorf("given %q: read back build %q, want %q", given, got.Meta.Build, want)
		}
	}
}
