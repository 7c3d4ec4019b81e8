package estimator

import "testing"

// TestResolvePinned pins the canonical options JSON of each estimator for
// its defaults and for typical options, as the code resolved them before
// the estimators' options moved into their packages: a sweep's
// task keys hash this JSON, so a long resumable study must find its
// finished tasks again after any refactoring of the options.
func TestResolvePinned(t *testing.T) {
	model, err := m3Model("")
	if err != nil {
		t.Fatal(err)
	}
	embedded := model.Digest()
	for _, tc := range []struct{ name, opts, want string }{
		{"packetsim", "", `{}`},
		{"packetsim", `{"host_fifo":true}`, `{"host_fifo":true}`},
		{"packetsim", `{"stop_at_ns":5000000,"host_fifo":true}`, `{"stop_at_ns":5000000,"host_fifo":true}`},
		{"packetsim", `{"host_fifo":true,"stop_at_ns":7}`, `{"stop_at_ns":7,"host_fifo":true}`},
		{"flowsim", "", `{}`},
		{"flowsim", `{"host_rate_bps":25000000000}`, `{"host_rate_bps":25000000000}`},
		// Parsimon's options name the defaults that choose its model
		// (the sparse links' bucket size and the window charged once
		// per path), which changed its records: runs of the published
		// method key apart from these.
		{"parsimon", "", `{"backend":"linksim","sparse_bucket_size":5,"window_once":true}`},
		{"parsimon", `{"workers":2}`, `{"backend":"linksim","workers":2,"sparse_bucket_size":5,"window_once":true}`},
		{"parsimon", `{"backend":"packetsim"}`, `{"backend":"packetsim","sparse_bucket_size":5,"window_once":true}`},
		{"parsimon", `{"seed":3,"bucket_size":500,"bucket_ratio":2,"inflation":1.5,"workers":4,"backend":"linksim"}`,
			`{"backend":"linksim","workers":4,"seed":3,"bucket_size":500,"bucket_ratio":2,"sparse_bucket_size":5,"inflation":1.5,"window_once":true}`},
		{"parsimon", `{"sparse_bucket_size":100,"window_once":false}`, `{"backend":"linksim","sparse_bucket_size":100,"window_once":false}`},
		{"parsimon-c", "", `{"backend":"linksim","sparse_bucket_size":5,"window_once":true}`},
		{"parsimon-c", `{"max_wmape":0.1,"max_load_diff":0.05,"max_load_error":0.2,"quantiles":50,"workers":2}`,
			`{"backend":"linksim","workers":2,"sparse_bucket_size":5,"window_once":true,"max_wmape":0.1,"max_load_diff":0.05,"max_load_error":0.2,"quantiles":50}`},
		{"parsimon-ns3", "", `{"backend":"ns3","sparse_bucket_size":5,"window_once":true}`},
		{"parsimon-ns3", `{"workers":2}`, `{"backend":"ns3","workers":2,"sparse_bucket_size":5,"window_once":true}`},
		// m3's options carry the digest of the model they name (so a
		// retrained model's results get keys of their own).
		{"m3", "", `{"model_digest":"` + embedded + `"}`},
		{"m3", `{"samples":50,"workers":2}`, `{"samples":50,"workers":2,"model_digest":"` + embedded + `"}`},
		{"m3", `{"model":"none"}`, `{"model":"none"}`},
		{"ns3", "", `{}`},
		{"dscale", "", `{"detect":{}}`},
		{"pfs", "", `{}`},
		{"pfs", `{"workers":2}`, `{"workers":2}`},
	} {
		got, err := Resolve(tc.name, tc.opts)
		if err != nil {
			t.Errorf("%s %s: %v", tc.name, tc.opts, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s %s: resolved %s, pinned %s", tc.name, tc.opts, got, tc.want)
		}
	}
}

// TestResolvePinnedNS3 pins ns3's canonical options JSON with every option
// set, as the mirror struct lib/estimator held before ns3.Options took JSON
// tags resolved it (field order and the time limit in seconds).
func TestResolvePinnedNS3(t *testing.T) {
	for _, tc := range []struct{ opts, want string }{
		{`{"program":"p","time_limit_s":2.5,"work_dir":"w","stop_at_ns":9}`, `{"stop_at_ns":9,"time_limit_s":2.5,"work_dir":"w","program":"p"}`},
		{`{"time_limit_s":0.001}`, `{"time_limit_s":0.001}`},
		{`{"time_limit_s":0}`, `{}`},
	} {
		got, err := Resolve("ns3", tc.opts)
		if err != nil || got != tc.want {
			t.Errorf("ns3 %s: resolved %s (%v), pinned %s", tc.opts, got, err, tc.want)
		}
	}
}

// Runtime-only fields of the estimators' Options (json:"-") and options of
// another variant are refused like any unknown option.
func TestResolveRefusesRuntimeFields(t *testing.T) {
	for _, tc := range []struct{ name, opts string }{
		{"packetsim", `{"seed":1}`},
		{"packetsim", `{"Paths":[[1,2]]}`},
		{"packetsim", `{"SampleEveryNanos":1000}`},
		{"packetsim", `{"KBytes":{"1":30000}}`},
		{"parsimon", `{"max_wmape":0.1}`},
		{"parsimon", `{"Progress":null}`},
		{"parsimon", `{"cluster":true}`},
		{"parsimon", `{"Links":null}`},
		{"parsimon-ns3", `{"quantiles":10}`},
		{"flowsim", `{"Progress":null}`},
		{"ns3", `{"Progress":null}`},
		{"ns3", `{"KBytes":{"0":30000}}`},
		{"ns3", `{"TimeLimitSeconds":1}`},
	} {
		if got, err := Resolve(tc.name, tc.opts); err == nil {
			t.Errorf("%s %s: accepted as %s", tc.name, tc.opts, got)
		}
	}
}

// Parsimon run as published keys its results by the options such runs
// had before sparse_bucket_size and window_once existed, so that
// archives of them are found again, with or without answer_anyway; any
// other options key by themselves.
func TestKeyOptions(t *testing.T) {
	for _, tc := range []struct{ name, opts, want string }{
		{"parsimon", PublishedParsimon, `{"backend":"linksim"}`},
		{"parsimon", `{"sparse_bucket_size":500,"window_once":false,"workers":2}`, `{"backend":"linksim","workers":2}`},
		{"parsimon-c", PublishedParsimon, `{"backend":"linksim"}`},
		{"parsimon-ns3", PublishedParsimon, `{"backend":"ns3"}`},
		{"parsimon", `{"answer_anyway":true,"sparse_bucket_size":100,"window_once":false}`, `{"answer_anyway":true,"backend":"linksim"}`},
		{"parsimon", `{"answer_anyway":true}`, `{"answer_anyway":true,"backend":"linksim","sparse_bucket_size":5,"window_once":true}`},
		{"parsimon", "", `{"backend":"linksim","sparse_bucket_size":5,"window_once":true}`},
		{"parsimon", `{"window_once":false}`, `{"backend":"linksim","sparse_bucket_size":5,"window_once":false}`},
		{"parsimon", `{"sparse_bucket_size":100,"bucket_size":200,"window_once":false}`, `{"backend":"linksim","bucket_size":200,"sparse_bucket_size":100,"window_once":false}`},
		{"m3", `{"model":"none"}`, `{"model":"none"}`},
	} {
		canon, err := Resolve(tc.name, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := KeyOptions(tc.name, canon); got != tc.want {
			t.Errorf("%s %s: key options %s, want %s", tc.name, tc.opts, got, tc.want)
		}
	}
}
