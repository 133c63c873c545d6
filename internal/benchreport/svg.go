package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// The charts' geometry, in px.
const (
	chartWidth = 820
	labelWidth = 380
	barHeight  = 18
	rowGap     = 8
	chartTop   = 36
)

// ratioChart draws docs/bench-ratios.svg: one bar per headline ratio, the peer at 1.
func (r *report) ratioChart() string {
	type bar struct {
		label, value, color string
		v                   float64
	}
	var bars []bar
	maxV := 2.0
	for _, h := range headline {
		if h.peer == "" {
			continue
		}
		v, _, ok := h.figure(r)
		if !ok {
			continue
		}
		color := "#4a78b5"
		if h.met != nil && h.met(v) {
			color = "#3c9a5f"
		} else if h.met != nil {
			color = "#c0504d"
		}
		bars = append(bars, bar{label: h.what, value: times(v), color: color, v: v})
		maxV = math.Max(maxV, math.Ceil(v))
	}
	height := chartTop + len(bars)*(barHeight+rowGap) + 40
	plot := float64(chartWidth - labelWidth - 70)
	x := func(v float64) float64 { return labelWidth + v/maxV*plot }
	var b strings.Builder
	svgOpen(&b, height, "Ours over the peer's, same run (1 = the peer; green: goal met, red: not met, blue: no goal)")
	bottom := chartTop + len(bars)*(barHeight+rowGap)
	for v := 0.0; v <= maxV; v++ {
		stroke := "#ddd"
		if v == 1 {
			stroke = "#333"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", x(v), chartTop-6, x(v), bottom, stroke)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%gx</text>`+"\n", x(v), bottom+16, v)
	}
	for i, br := range bars {
		y := chartTop + i*(barHeight+rowGap)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelWidth-8, y+13, esc(br.label))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", labelWidth, y, x(br.v)-labelWidth, barHeight, br.color)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", x(br.v)+6, y+13, esc(br.value))
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333" stroke-dasharray="3,2"/>`+"\n", x(1), chartTop-6, x(1), bottom)
	b.WriteString("</svg>\n")
	return b.String()
}

// upstashChart draws docs/bench-upstash.svg: decisions/s at 1 and 16 callers, ours and
// the peers'.
func (r *report) upstashChart() string {
	run := r.runs["upstash"]
	series := []struct{ name, bench, color string }{
		{"edgelimit's Upstash store (REST)", "BenchmarkStoreDecide", "#3c9a5f"},
		{"the same, pipelining on", "BenchmarkStoreDecidePipelined", "#2e7d4a"},
		{"@upstash/ratelimit (REST, node)", "BenchmarkUpstashRatelimitJS", "#c0504d"},
		{"go-redis EVALSHA (RESP, no REST)", "BenchmarkRedisDirect", "#999"},
	}
	callers := []string{"1", "16"}
	maxV := 1.0
	for _, s := range series {
		for _, c := range callers {
			v, _ := run.median(s.bench+"/callers="+c, perSecond)
			maxV = math.Max(maxV, v)
		}
	}
	height := chartTop + len(callers)*(len(series)*(barHeight+4)+rowGap*2) + 30
	plot := float64(chartWidth - labelWidth - 130)
	var b strings.Builder
	svgOpen(&b, height, "Decisions/s on the local Upstash server, one key per caller (higher is better)")
	y := chartTop
	for _, c := range callers {
		fmt.Fprintf(&b, `<text x="8" y="%d" font-weight="bold">%s caller%s</text>`+"\n", y+13, c, map[bool]string{true: "s"}[c != "1"])
		for _, s := range series {
			v, _ := run.median(s.bench+"/callers="+c, perSecond)
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelWidth-8, y+13, esc(s.name))
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", labelWidth, y, v/maxV*plot, barHeight, s.color)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", labelWidth+v/maxV*plot+6, y+13, esc(figure(v, perSecond)))
			y += barHeight + 4
		}
		y += rowGap * 2
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func svgOpen(b *strings.Builder, height int, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartWidth, height, chartWidth, height)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", chartWidth, height)
	fmt.Fprintf(b, `<text x="8" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", esc(title))
}

func esc(s string) string { return html.EscapeString(strings.ReplaceAll(s, "`", "")) }
