// Package dscale builds small replicas of a network that preserve the
// performance of its congested part, after DSCALE (Papadopoulos, Psounis,
// Govindan, "Performance Preserving Topological Downscaling of
// Internet-Like Networks"), and extrapolates the replicas' metrics back
// to the original. It runs on tailscope's packet-level simulator
// (lib/packetsim).
//
// The premise is that only congested links shape packet arrivals and
// introduce dependencies between flows. Detect finds them in a run by the
// paper's definition: a link is uncongested when it drops nothing and the
// queueing delay it adds is an order of magnitude below the end-to-end
// queueing delay of every flow crossing it. Build then makes one of two
// replicas holding only the congested links and the flow groups (flows
// sharing a path) that cross them:
//
//   - DSCALEd keeps every flow of those groups and replaces what was
//     removed by fixed delays, so that each group keeps its propagation
//     and transmission delays; metrics carry over unchanged.
//   - DSCALEs samples group g with its own factor alpha_g and rescales the
//     kept links' capacities and delays (Solve) so that each group's RTT
//     shrinks exactly by alpha_g and each link's traffic intensity stays
//     the same: the replica is, group by group, a slower copy (SHRiNK's
//     time-downscaling law). Queue lengths carry over; delays scale back
//     (Replica.Extrapolate).
//
// Where the paper adds DSCALEd's fixed delays at each packet's source, the
// replicas here give each group source and destination hosts whose access
// links carry the delays of the removed links before and after its
// congested links (removed links between congested ones add to the
// source's), so that most delay sits where the removed links were, which
// the paper notes preserves performance over time and not only in
// distribution. Access links run at the original first and last hops'
// rates, so a host still paces its packets as its NIC did. Congested
// links that were not adjacent are joined by shared connector links
// without delay, and every flow's route is pinned (packetsim's Paths).
//
// Other choices the paper leaves open: the congested-link test has a
// floor (DetectOptions.MinQueueNs) below which queueing never counts;
// DSCALEs's RTTs are propagation only, as in the paper's equations; a
// kept link's two directions share one capacity factor (a topology link
// has one rate), computed from the groups crossing either direction; its
// access links run at the original rates scaled like the link they feed,
// so that a source's bursts meet it as before; and its minimum RTO
// stretches by the smallest sampling factor.
//
// Evaluate runs the original and its replicas and compares queue-length
// and FCT distributions (with the paper's histogram similarity measure,
// HSM) and simulation times.
package dscale

import "math"

// HSM is DSCALE's histogram similarity measure of two samples, 1 - V,
// with V Cramér's V of the 2 x k table of their counts over k common bins
// (k equal bins over their joint range, of the logarithm when log is
// set): 1 when the histograms are proportional, 0 when they share no
// bin. Empty bins are left out; an empty sample gives NaN.
func HSM(a, b []float64, k int, log bool) float64 {
	if len(a) == 0 || len(b) == 0 || k < 1 {
		return math.NaN()
	}
	f := func(x float64) float64 {
		if log {
			return math.Log(math.Max(x, 1e-300))
		}
		return x
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range [][]float64{a, b} {
		for _, x := range s {
			lo, hi = min(lo, f(x)), max(hi, f(x))
		}
	}
	count := func(s []float64) []float64 {
		c := make([]float64, k)
		for _, x := range s {
			i := 0
			if hi > lo {
				i = min(k-1, int(float64(k)*(f(x)-lo)/(hi-lo)))
			}
			c[i]++
		}
		return c
	}
	ca, cb := count(a), count(b)
	na, nb := float64(len(a)), float64(len(b))
	n := na + nb
	var chi2 float64
	for i := range ca {
		col := ca[i] + cb[i]
		if col == 0 {
			continue
		}
		for _, o := range [][2]float64{{ca[i], na}, {cb[i], nb}} {
			e := o[1] * col / n
			chi2 += (o[0] - e) * (o[0] - e) / e
		}
	}
	return 1 - math.Sqrt(chi2/n)
}
