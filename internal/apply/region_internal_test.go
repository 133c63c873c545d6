package apply

import "testing"

// TestRegionOf: the region of an API Gateway host, else the SDK's.
func TestRegionOf(t *testing.T) {
	tests := []struct{ host, def, want string }{
		{"abc123.execute-api.eu-west-3.amazonaws.com", "us-east-1", "eu-west-3"},
		{"abc123.execute-api.cn-north-1.amazonaws.com.cn", "", "cn-north-1"},
		{"admin.example.com", "us-east-1", "us-east-1"},
		{"127.0.0.1", "", ""},
	}
	for _, tc := range tests {
		if got := regionOf(tc.host, tc.def); got != tc.want {
			t.Errorf("regionOf(%q, %q) = %q, want %q", tc.host, tc.def, got, tc.want)
		}
	}
}
