package templatecheck

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite docs/dashboard.svg")

// TestDashboardPicture draws the dashboard's layout, as template.yaml deploys it with
// the default parameters, to docs/dashboard.svg (the README shows it) and requires the
// committed file to match (go test ./internal/templatecheck -run Picture -update
// rewrites it).
func TestDashboardPicture(t *testing.T) {
	tmpl := load(t)
	st := stackFor(nil)
	body, err := st.Evaluate(tmpl, mustResource(t, tmpl, dashboardResource, "AWS::CloudWatch::Dashboard").Properties["DashboardBody"])
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDashboard(asString(body))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := DashboardSVG(d, st.Name+"-", "The CloudWatch dashboard of template.yaml (Backend dynamodb): widgets on its 24-column grid")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testenv.ModuleRoot(t), "docs", "dashboard.svg")
	testenv.Golden(t, path, []byte(svg), *update, "go test ./internal/templatecheck -run Picture -update")
}
