// Package scenario describes a whole experiment input — topology, workload,
// network model and seed — as a JSON spec, and builds it into a network and
// its flows. A spec and its seed determine the flows exactly, and the spec's
// ID (a hash of its canonical JSON, network defaults left out) names its
// results.
package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/flowfile"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Spec is a scenario. Exactly one topology source must be set.
type Spec struct {
	Name     string        `json:"name,omitempty"`
	Topology Topology      `json:"topology"`
	Workload workload.Spec `json:"workload"`
	Network  netcfg.Config `json:"network"`
	Seed     uint64        `json:"seed"`
}

// Topology names where the network comes from: a fabric preset (see
// topo.Presets), an explicit fabric, parking lot, dumbbell or CENIC-like
// backbone (DSCALE's), or a file in
// Parsimon's JSON (.json) or ns-3's topology.txt format. FailedLinks are
// taken out of service before routing (Parsimon App. B); the workload is
// drawn on the intact network (see Build), so a failure changes the
// routes and never the flows.
type Topology struct {
	Preset      string               `json:"preset,omitempty"`
	Fabric      *topo.FabricSpec     `json:"fabric,omitempty"`
	ParkingLot  *topo.ParkingLotSpec `json:"parking_lot,omitempty"`
	Dumbbell    *topo.DumbbellSpec   `json:"dumbbell,omitempty"`
	CENIC       *topo.CENICSpec      `json:"cenic,omitempty"`
	File        string               `json:"file,omitempty"`
	FailedLinks []int                `json:"failed_links,omitempty"`
	// Digest stands for a network a program gave (FromNetwork): the
	// SHA-256 of its Parsimon JSON. It records where the network came
	// from; such a topology cannot be built from the spec.
	Digest string `json:"digest,omitempty"`
}

// Build makes the network the topology describes, its failed links out
// of service.
func (t Topology) Build() (*topo.Network, error) {
	n, err := t.BuildIntact()
	if err != nil {
		return nil, err
	}
	for _, l := range t.FailedLinks {
		if err := n.FailLink(l); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// BuildIntact makes the network the topology describes with every link
// in service, FailedLinks ignored: the network the workload is drawn on.
func (t Topology) BuildIntact() (*topo.Network, error) {
	if t.Digest != "" {
		return nil, fmt.Errorf("scenario: the network of this spec was given by a program (digest %s); the spec cannot build it", t.Digest)
	}
	set := 0
	for _, ok := range []bool{t.Preset != "", t.Fabric != nil, t.ParkingLot != nil, t.Dumbbell != nil, t.CENIC != nil, t.File != ""} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return nil, fmt.Errorf("scenario: topology must set exactly one of preset, fabric, parking_lot, dumbbell, cenic, file (%d set)", set)
	}
	var (
		n   *topo.Network
		err error
	)
	switch {
	case t.Preset != "":
		var fs topo.FabricSpec
		if fs, err = topo.Preset(t.Preset); err == nil {
			n, err = topo.Fabric(fs)
		}
	case t.Fabric != nil:
		n, err = topo.Fabric(*t.Fabric)
	case t.ParkingLot != nil:
		n, err = topo.ParkingLot(*t.ParkingLot)
	case t.Dumbbell != nil:
		n, err = topo.Dumbbell(*t.Dumbbell)
	case t.CENIC != nil:
		n, err = topo.CENIC(*t.CENIC)
	default:
		n, err = readTopology(t.File)
	}
	return n, err
}

func readTopology(path string) (*topo.Network, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: topology file: %w", err)
	}
	defer f.Close()
	name := filepath.Base(path)
	if strings.HasSuffix(path, ".json") {
		return topo.ReadParsimonJSON(name, f)
	}
	return topo.ReadNS3(name, f)
}

// Scenario is a built spec: its network and flows.
type Scenario struct {
	// Spec is the spec with the values that stand for a property of the
	// network made concrete (netcfg.Config.Resolve): what estimators run.
	Spec  Spec
	ID    string        // the ID of the spec as given (Given)
	Net   *topo.Network // failed links out of service
	Flows []workload.Flow
	// intact is the network with every link in service, which the
	// workload is drawn on, when it differs from Net (failed links).
	intact *topo.Network
	given  *Spec
}

// Given is the spec as it was given to Build or BuildNet, before its
// network block was resolved: the spec whose ID is ID, and so the one a
// result's provenance records (a frame's spec run again is the same
// scenario). A Scenario made otherwise gives its Spec.
func (sc *Scenario) Given() Spec {
	if sc.given == nil {
		return sc.Spec
	}
	return *sc.given
}

// Build validates spec and generates its network and flows. The flows
// are drawn on the intact network, before the spec's failed links are
// taken out of service: a workload's load targeting (max_load) routes
// its flows, and drawing on the failed network would re-target the load
// and so change the flows. A failure counterfactual thus keeps the same
// flows (ids, sizes, start times, hosts), and every estimator sees the
// failure through the routes of Net, which avoid the failed links.
func Build(spec Spec) (*Scenario, error) {
	sc, err := BuildNet(spec)
	if err != nil {
		return nil, err
	}
	if spec.Workload.FromFile() {
		sc.Flows, err = flowfile.Load(sc.workloadNet(), spec.Workload)
	} else {
		sc.Flows, err = workload.Generate(sc.workloadNet(), spec.Workload, spec.Seed)
	}
	if err != nil {
		return nil, err
	}
	sc.intact = nil // the flows are drawn; Source needs it no more
	return sc, nil
}

// BuildNet is Build without drawing the flows (Flows stays nil), for runs
// that take them from Source as they go and so never hold them all.
func BuildNet(spec Spec) (*Scenario, error) {
	if err := spec.Network.Validate(); err != nil {
		return nil, err
	}
	n, err := spec.Topology.BuildIntact()
	if err != nil {
		return nil, err
	}
	sc := &Scenario{Spec: spec, ID: spec.ID(), Net: n, given: &spec}
	if len(spec.Topology.FailedLinks) > 0 {
		sc.intact = n
		if sc.Net, err = spec.Topology.Build(); err != nil {
			return nil, err
		}
	}
	// Values that stand for a property of the network (HPCC's T as the
	// fork's) become concrete here, for every estimator; the ID keeps
	// the spec as written.
	sc.Spec.Network = spec.Network.Resolve(sc.Net.MaxHostDelay)
	return sc, nil
}

// WithFlows returns the scenario with flows in place of its spec's
// workload: the way a Go program runs its own flows on a scenario's
// network and model. The flows must pass workload.Check on the network.
// The new scenario's spec (Given, which frames record) has a workload of
// just the flows' digest (workload.Digest), and its ID hashes that: a
// frame written from it says that its flows were given, which flows they
// were, and never passes for the spec's generated workload.
func (sc *Scenario) WithFlows(flows []workload.Flow) (*Scenario, error) {
	if err := workload.Check(sc.workloadNet(), flows); err != nil {
		return nil, fmt.Errorf("scenario: WithFlows: %w", err)
	}
	given := sc.Given()
	given.Workload = workload.Spec{Digest: workload.Digest(flows)}
	out := &Scenario{Spec: sc.Spec, ID: given.ID(), Net: sc.Net, Flows: flows, given: &given}
	out.Spec.Workload = given.Workload
	return out, nil
}

// FromNetwork builds a scenario from a network and flows that a program
// made, under the network model cfg; seed is recorded for the estimators
// that draw random numbers of their own. The spec records the network's
// digest (the SHA-256 of its Parsimon JSON) and the flows' (see
// WithFlows), so frames written from the scenario name exactly what ran.
func FromNetwork(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, seed uint64) (*Scenario, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	h := sha256.New()
	if err := net.WriteParsimonJSON(h); err != nil {
		return nil, err
	}
	spec := Spec{Name: net.Name, Topology: Topology{Digest: "sha256:" + hex.EncodeToString(h.Sum(nil))}, Network: cfg, Seed: seed}
	sc := &Scenario{Spec: spec, ID: spec.ID(), Net: net, given: &spec}
	sc.Spec.Network = cfg.Resolve(net.MaxHostDelay)
	return sc.WithFlows(flows)
}

// workloadNet is the network the workload is drawn on: the intact one.
func (sc *Scenario) workloadNet() *topo.Network {
	if sc.intact != nil {
		return sc.intact
	}
	return sc.Net
}

// Source yields the scenario's flows: Flows when they were drawn, else
// the spec's workload drawn flow by flow (the same flows).
func (sc *Scenario) Source() (workload.Source, error) {
	if sc.Flows != nil {
		return workload.SliceSource(sc.Flows), nil
	}
	if sc.Spec.Workload.FromFile() {
		flows, err := flowfile.Load(sc.workloadNet(), sc.Spec.Workload)
		if err != nil {
			return nil, err
		}
		return workload.SliceSource(flows), nil
	}
	return workload.NewSource(sc.workloadNet(), sc.Spec.Workload, sc.Spec.Seed)
}

// Parse reads a JSON spec. Fields it does not know are errors (a typo must
// not silently fall back to a default); network fields left out keep the
// values of netcfg.Default.
func Parse(r io.Reader) (Spec, error) {
	s := Spec{Network: netcfg.Default()}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Spec{}, fmt.Errorf("scenario: malformed spec: %w", err)
	}
	if dec.More() {
		return Spec{}, errors.New("scenario: malformed spec: more than one JSON value")
	}
	return s, nil
}

// Load reads a JSON spec file. The relative paths of the files it names
// (topology file, matrix CSVs, size CDF files, flows file) are relative
// to the spec file's folder, and Load joins them to it, so a spec and
// its files can move together.
func Load(path string) (Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return Spec{}, fmt.Errorf("scenario: %w", err)
	}
	defer f.Close()
	s, err := Parse(f)
	if err != nil {
		return Spec{}, fmt.Errorf("%s: %w", path, err)
	}
	s.resolve(filepath.Dir(path))
	return s, nil
}

// files calls do on a pointer to every file path the spec names.
func (s *Spec) files(do func(p *string)) {
	if s.Topology.File != "" {
		do(&s.Topology.File)
	}
	if s.Workload.File != "" {
		do(&s.Workload.File)
	}
	for i := range s.Workload.Components {
		c := &s.Workload.Components[i]
		if len(c.Pairs) == 0 && workload.IsMatrixFile(c.Matrix) {
			do(&c.Matrix)
		}
		if c.Sizes.File != "" {
			do(&c.Sizes.File)
		}
	}
}

// resolve joins the spec's relative file paths to dir.
func (s *Spec) resolve(dir string) {
	s.Workload.Components = slices.Clone(s.Workload.Components)
	s.files(func(p *string) {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	})
}

// fileDigest is "sha256:" and the hex SHA-256 of the file's bytes, or, for
// a file that cannot be read, a marker with the error (such a spec fails
// to build, so its ID names nothing that ran).
func fileDigest(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unreadable:" + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable:" + err.Error()
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// JSON returns the canonical JSON of the spec (the form its ID hashes).
func (s Spec) JSON() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a Spec always encodes
	}
	return strings.TrimSpace(b.String())
}

// ID is a short hash of the canonical JSON with the network fields that
// hold netcfg.Default's value left out and every file the spec names
// (topology, matrix CSV, size CDF, flows) replaced by the digest of its
// contents: a changed file is a new scenario, whose results a resumed
// sweep does not take from the old one, and the same file under another
// path or folder is the same scenario. Equal specs share results, and a
// field added to the network model later, whose default keeps the old
// behaviour, leaves every ID (and so every finished sweep result) in
// place. The flip side: changing a default value changes the results of
// specs that rely on it without changing their IDs, so a model change
// must be swept into a new directory.
func (s Spec) ID() string {
	h := sha256.Sum256(s.idJSON())
	return hex.EncodeToString(h[:6])
}

// idJSON is the JSON that ID hashes: the spec's, with the network block
// reduced to the fields that differ from netcfg.Default.
func (s Spec) idJSON() []byte {
	s.Workload.Components = slices.Clone(s.Workload.Components)
	s.files(func(p *string) { *p = fileDigest(*p) })
	var spec, def map[string]any
	mustRoundTrip(s, &spec)
	mustRoundTrip(netcfg.Default(), &def)
	if n, ok := spec["network"].(map[string]any); ok {
		pruneDefaults(n, def)
	}
	b, err := json.Marshal(spec) // maps marshal with sorted keys
	if err != nil {
		panic(err) // decoded JSON always encodes
	}
	return b
}

// mustRoundTrip decodes v's JSON into out.
func mustRoundTrip(v any, out *map[string]any) {
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		panic(err) // specs and network configs always encode
	}
}

// pruneDefaults deletes from m every key whose value equals def's,
// descending into nested objects (a block that ends up empty goes too).
func pruneDefaults(m, def map[string]any) {
	for k, v := range m {
		d, ok := def[k]
		if !ok {
			continue
		}
		vm, vok := v.(map[string]any)
		dm, dok := d.(map[string]any)
		if vok && dok {
			pruneDefaults(vm, dm)
			if len(vm) == 0 {
				delete(m, k)
			}
			continue
		}
		if reflect.DeepEqual(v, d) {
			delete(m, k)
		}
	}
}

// FamilyID is the ID of the spec with its seed cleared: the same
// scenario run with several seeds (experiment.Replicate) shares it.
func (s Spec) FamilyID() string {
	s.Seed = 0
	return s.ID()
}

// WorkloadID is the ID of the spec with its name, network model and
// failed links cleared: the specs that share it draw the same flows
// (Build), so the results of one workload under several network
// configurations, a failure included, pair flow by flow.
func (s Spec) WorkloadID() string {
	s.Name, s.Network, s.Topology.FailedLinks = "", netcfg.Config{}, nil
	return s.ID()
}
