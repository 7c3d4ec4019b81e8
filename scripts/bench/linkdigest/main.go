// Command linkdigest prints a SHA-256 digest of every link-level
// simulation of a Parsimon run, under several network models: the
// same-results check of an optimization of lib/linksim, whose digests
// must not change. For each model it decomposes the scenario, runs the
// default backend on every busy channel's task and hashes the flows'
// completion times in channel order.
//
//	go run ./scripts/bench/linkdigest -flows 20000 spec.json
package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"os"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/scenario"
)

func main() {
	flows := flag.Int("flows", 0, "override the spec's flow count (0: keep it)")
	models := flag.String("models", "all", `"all" (every CC and the marking, buffer and var_win variants) or "default"`)
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: linkdigest [-flows N] [-models all|default] spec.json")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *flows, *models); err != nil {
		fmt.Fprintln(os.Stderr, "linkdigest:", err)
		os.Exit(1)
	}
}

// model is a named change of the spec's network model.
type model struct {
	name string
	set  func(*netcfg.Config)
}

func variants(which string) ([]model, error) {
	ms := []model{{"default", func(*netcfg.Config) {}}}
	switch which {
	case "default":
		return ms, nil
	case "all":
	default:
		return nil, fmt.Errorf("unknown -models %q (all or default)", which)
	}
	for _, cc := range netcfg.CCs[1:] {
		ms = append(ms, model{cc, func(c *netcfg.Config) { c.CC = cc }})
	}
	return append(ms,
		model{"enqueue", func(c *netcfg.Config) { c.ECNMark = "enqueue" }},
		model{"buffer12000", func(c *netcfg.Config) { c.BufferBytes = 12000 }},
		model{"timely-buffer12000", func(c *netcfg.Config) { c.CC, c.BufferBytes = "timely", 12000 }},
		model{"novarwin", func(c *netcfg.Config) { c.DCTCP.VarWin = false }},
	), nil
}

func run(path string, nflows int, which string) error {
	spec, err := scenario.Load(path)
	if err != nil {
		return err
	}
	if nflows > 0 {
		spec.Workload.Flows = nflows
	}
	ms, err := variants(which)
	if err != nil {
		return err
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		return err
	}
	ctx := context.Background()
	for _, m := range ms {
		cfg := spec.Network
		m.set(&cfg)
		d, err := parsimon.Decompose(ctx, sc.Net, sc.Flows, cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		h := sha256.New()
		var buf [8]byte
		sims := 0
		for c := range sc.Net.Channels {
			if len(d.On(c)) == 0 {
				continue
			}
			t, err := d.Task(c, parsimon.DefaultInflation)
			if err != nil {
				return fmt.Errorf("%s: channel %d: %w", m.name, c, err)
			}
			recs, err := parsimon.LinkSim(ctx, t)
			if err != nil {
				return fmt.Errorf("%s: channel %d: %w", m.name, c, err)
			}
			for _, r := range recs {
				binary.LittleEndian.PutUint64(buf[:], uint64(r.FCT))
				h.Write(buf[:])
			}
			sims++
		}
		fmt.Printf("%-20s %d links %x\n", m.name, sims, h.Sum(nil))
	}
	return nil
}
