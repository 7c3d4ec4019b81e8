package topo

import (
	"fmt"
	"math"
)

// CENICSpec describes a CENIC-like backbone: the 25-router, 41-link shape
// of the CENIC network DSCALE (Papadopoulos, Psounis, Govindan, Fig. 2)
// studies, with a host (a point of presence) on every router.
//
// The paper gives the size, the two overlaid networks (the research
// network "HPR" and the "DC" network, with both kinds of router at
// Sunnyvale and Los Angeles), the congested HPR-DC links at those two
// sites, and the delay rule: 0.1 ms within one site, else the link's
// length at 133,000 miles/s. Its map is a figure, so the router list,
// the link list and the city coordinates here are ours: routers at
// eighteen California sites, HPR routers at Sunnyvale, Los Angeles,
// Sacramento, Riverside and San Diego, a DC ring along the coast and the
// Central Valley, and great-circle lengths between the cities.
type CENICSpec struct {
	// BackboneBandwidth is every router-to-router link but the HPR-DC
	// interconnects (default 1 Gbps).
	BackboneBandwidth int64 `json:"backbone_bandwidth,omitempty"`
	// InterconnectBandwidth is the links joining the HPR and DC routers
	// at Sunnyvale and Los Angeles, where the paper's congested links are
	// (default: BackboneBandwidth).
	InterconnectBandwidth int64 `json:"interconnect_bandwidth,omitempty"`
	// AccessBandwidth and AccessDelay are each host's link to its router
	// (default 10 x BackboneBandwidth and 1 us): fast and short, so that
	// access links never congest.
	AccessBandwidth int64 `json:"access_bandwidth,omitempty"`
	AccessDelay     int64 `json:"access_delay,omitempty"`
}

// cenicSite is a city: name and latitude/longitude in degrees.
type cenicSite struct {
	name     string
	lat, lon float64
}

var cenicSites = map[string]cenicSite{
	"SVL": {"Sunnyvale", 37.37, -122.04}, "LAX": {"Los Angeles", 34.05, -118.24},
	"OAK": {"Oakland", 37.80, -122.27}, "SAC": {"Sacramento", 38.58, -121.49},
	"SFO": {"San Francisco", 37.77, -122.42}, "FRG": {"Fresno", 36.74, -119.79},
	"SLO": {"San Luis Obispo", 35.28, -120.66}, "SBA": {"Santa Barbara", 34.42, -119.70},
	"RIV": {"Riverside", 33.95, -117.40}, "SDG": {"San Diego", 32.72, -117.16},
	"TUS": {"Tustin", 33.75, -117.83}, "BAK": {"Bakersfield", 35.37, -119.02},
	"CHI": {"Chico", 39.73, -121.84}, "EUR": {"Eureka", 40.80, -124.16},
	"RED": {"Redding", 40.59, -122.39}, "MER": {"Merced", 37.30, -120.48},
	"SCZ": {"Santa Cruz", 36.97, -122.03}, "PAS": {"Pasadena", 34.15, -118.14},
}

// CENICRouters names the routers in node order: router i is node
// CENICRouterNode(i), and host i (node i) hangs off it. "SVL-hpr" is the
// HPR router at Sunnyvale, "SVL-dc1" one of its DC routers.
var CENICRouters = []string{
	"SVL-hpr", "SVL-dc1", "SVL-dc2", "LAX-hpr", "LAX-dc1", "LAX-dc2", "SAC-hpr", "SAC-dc", "OAK-dc",
	"SFO-dc", "FRG-dc", "SLO-dc", "SBA-dc", "RIV-hpr", "RIV-dc", "SDG-hpr", "SDG-dc", "TUS-dc",
	"BAK-dc", "CHI-dc", "EUR-dc", "RED-dc", "MER-dc", "SCZ-dc", "PAS-dc",
}

// cenicLinks are the 41 router-to-router links.
var cenicLinks = [][2]string{
	// Within a site: HPR-DC interconnects and the DC pairs.
	{"SVL-hpr", "SVL-dc1"}, {"SVL-hpr", "SVL-dc2"}, {"SVL-dc1", "SVL-dc2"},
	{"LAX-hpr", "LAX-dc1"}, {"LAX-hpr", "LAX-dc2"}, {"LAX-dc1", "LAX-dc2"},
	{"SAC-hpr", "SAC-dc"}, {"RIV-hpr", "RIV-dc"}, {"SDG-hpr", "SDG-dc"},
	// HPR backbone.
	{"SVL-hpr", "SAC-hpr"}, {"SVL-hpr", "LAX-hpr"}, {"LAX-hpr", "RIV-hpr"}, {"RIV-hpr", "SDG-hpr"}, {"LAX-hpr", "SDG-hpr"},
	// DC network: the Bay Area and the north.
	{"SVL-dc1", "OAK-dc"}, {"OAK-dc", "SFO-dc"}, {"SFO-dc", "SVL-dc2"}, {"OAK-dc", "SAC-dc"},
	{"SAC-dc", "CHI-dc"}, {"CHI-dc", "RED-dc"}, {"RED-dc", "EUR-dc"}, {"EUR-dc", "SFO-dc"},
	// The coast and the Central Valley.
	{"SVL-dc2", "SCZ-dc"}, {"SCZ-dc", "SLO-dc"}, {"SVL-dc1", "MER-dc"}, {"SAC-dc", "MER-dc"},
	{"MER-dc", "FRG-dc"}, {"FRG-dc", "BAK-dc"}, {"BAK-dc", "LAX-dc1"}, {"SLO-dc", "SBA-dc"},
	{"SBA-dc", "LAX-dc2"}, {"SLO-dc", "BAK-dc"}, {"SVL-dc2", "FRG-dc"},
	// Southern California.
	{"LAX-dc1", "PAS-dc"}, {"PAS-dc", "RIV-dc"}, {"LAX-dc2", "TUS-dc"}, {"TUS-dc", "SDG-dc"},
	{"RIV-dc", "SDG-dc"}, {"TUS-dc", "RIV-dc"}, {"PAS-dc", "LAX-dc2"}, {"BAK-dc", "PAS-dc"},
}

// CENICRouterNode is the node id of router i (hosts come first).
func CENICRouterNode(i int) int { return len(CENICRouters) + i }

// cenicDelay is a link's propagation delay in ns: 0.1 ms within one site
// (and for anything shorter), else the great-circle distance at 133,000
// miles/s, as DSCALE estimates CENIC's delays.
func cenicDelay(a, b cenicSite) int64 {
	const earthKm, kmPerMile = 6371.0, 1.609344
	rad := math.Pi / 180
	dlat, dlon := (b.lat-a.lat)*rad, (b.lon-a.lon)*rad
	h := math.Sin(dlat/2)*math.Sin(dlat/2) + math.Cos(a.lat*rad)*math.Cos(b.lat*rad)*math.Sin(dlon/2)*math.Sin(dlon/2)
	km := 2 * earthKm * math.Asin(math.Sqrt(h))
	ns := km / kmPerMile / 133_000 * 1e9
	return int64(math.Round(max(ns, 100_000)))
}

// CENIC builds the CENIC-like backbone: hosts 0..24, host i attached to
// router CENICRouterNode(i) (named CENICRouters[i]), and the 41 router
// links with the spec's bandwidths and distance-based delays.
func CENIC(s CENICSpec) (*Network, error) {
	if s.BackboneBandwidth == 0 {
		s.BackboneBandwidth = Gbps
	}
	if s.InterconnectBandwidth == 0 {
		s.InterconnectBandwidth = s.BackboneBandwidth
	}
	if s.AccessBandwidth == 0 {
		s.AccessBandwidth = 10 * s.BackboneBandwidth
	}
	if s.AccessDelay == 0 {
		s.AccessDelay = Microsecond
	}
	if s.BackboneBandwidth < 0 || s.InterconnectBandwidth < 0 || s.AccessBandwidth < 0 || s.AccessDelay < 0 {
		return nil, fmt.Errorf("topo: CENIC bandwidths and delays must not be negative: %+v", s)
	}
	n := len(CENICRouters)
	id := map[string]int{}
	nodes := make([]Node, 2*n)
	var links []Link
	for i, name := range CENICRouters {
		id[name] = CENICRouterNode(i)
		nodes[i] = Node{ID: i, Kind: Host, Rack: -1, Pod: -1}
		nodes[n+i] = Node{ID: n + i, Kind: Switch, Rack: -1, Pod: -1}
		links = append(links, Link{A: i, B: n + i, Bandwidth: s.AccessBandwidth, Delay: s.AccessDelay})
	}
	for _, l := range cenicLinks {
		sa, sb := cenicSites[l[0][:3]], cenicSites[l[1][:3]]
		bw := s.BackboneBandwidth
		if site := l[0][:3]; site == l[1][:3] && (site == "SVL" || site == "LAX") && (l[0][4:] == "hpr" || l[1][4:] == "hpr") {
			bw = s.InterconnectBandwidth
		}
		links = append(links, Link{A: id[l[0]], B: id[l[1]], Bandwidth: bw, Delay: cenicDelay(sa, sb)})
	}
	return New("cenic-like", nodes, links)
}

// CENICNodeName names a node of the CENIC-like backbone: its router's
// name ("SVL-hpr"), or "host@" and the router's name for a host.
func CENICNodeName(id int) string {
	n := len(CENICRouters)
	switch {
	case id >= 0 && id < n:
		return "host@" + CENICRouters[id]
	case id >= n && id < 2*n:
		return CENICRouters[id-n]
	}
	return fmt.Sprintf("node %d", id)
}
