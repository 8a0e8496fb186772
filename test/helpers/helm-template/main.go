// Renders a Helm chart as `helm template` does, for the chart's tests on machines that cannot
// download Helm: Go's text/template with the Sprig functions (minus env and expandenv) and Helm's
// own additions (include, tpl, required, toYaml, fromYaml, toJson, fromJson, lookup), templates
// named "<chart>/templates/<file>", values from values.yaml deep-merged with each -f file, and
// missing keys rendered empty. It covers what a chart of its own uses, not Helm's dependencies,
// hooks or Capabilities.
//
//	helm-template <chart-dir> <release-name> <namespace> [values.yaml ...]
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 4 {
		fail(fmt.Errorf("usage: helm-template <chart-dir> <release-name> <namespace> [values.yaml ...]"))
	}
	dir, release, namespace := os.Args[1], os.Args[2], os.Args[3]
	chart := map[string]interface{}{}
	must(readYaml(filepath.Join(dir, "Chart.yaml"), &chart))
	values := map[string]interface{}{}
	must(readYaml(filepath.Join(dir, "values.yaml"), &values))
	for _, file := range os.Args[4:] {
		override := map[string]interface{}{}
		must(readYaml(file, &override))
		values = merge(values, override)
	}
	name := chart["name"].(string)
	basePath := path.Join(name, "templates")

	root := template.New("chart").Option("missingkey=zero")
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	included := map[string]int{}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		if included[name] > 100 {
			return "", fmt.Errorf("include %q: too deep", name)
		}
		included[name]++
		defer func() { included[name]-- }()
		var out bytes.Buffer
		err := root.ExecuteTemplate(&out, name, data)
		return out.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		if t, err = t.New("tpl").Parse(text); err != nil {
			return "", err
		}
		var out bytes.Buffer
		err = t.Execute(&out, data)
		return strings.ReplaceAll(out.String(), "<no value>", ""), err
	}
	funcs["required"] = func(message string, value interface{}) (interface{}, error) {
		if value == nil || value == "" {
			return nil, fmt.Errorf("%s", message)
		}
		return value, nil
	}
	funcs["toYaml"] = func(value interface{}) string {
		data, err := yaml.Marshal(value)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(string(data), "\n")
	}
	funcs["fromYaml"] = func(text string) map[string]interface{} {
		out := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(text), &out); err != nil {
			out["Error"] = err.Error()
		}
		return out
	}
	funcs["toJson"] = func(value interface{}) string {
		data, _ := json.Marshal(value)
		return string(data)
	}
	funcs["fromJson"] = func(text string) map[string]interface{} {
		out := map[string]interface{}{}
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			out["Error"] = err.Error()
		}
		return out
	}
	funcs["lookup"] = func(string, string, string, string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	root.Funcs(funcs)

	files, err := filepath.Glob(filepath.Join(dir, "templates", "*"))
	must(err)
	sort.Strings(files)
	for _, file := range files {
		text, err := os.ReadFile(file)
		must(err)
		_, err = root.New(path.Join(basePath, filepath.Base(file))).Parse(string(text))
		must(err)
	}
	top := map[string]interface{}{
		"Values":  values,
		"Chart":   map[string]interface{}{"Name": name, "Version": chart["version"], "AppVersion": chart["appVersion"], "Description": chart["description"]},
		"Release": map[string]interface{}{"Name": release, "Namespace": namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
	}
	for _, file := range files {
		base := filepath.Base(file)
		if strings.HasPrefix(base, "_") {
			continue
		}
		data := map[string]interface{}{}
		for key, value := range top {
			data[key] = value
		}
		name := path.Join(basePath, base)
		data["Template"] = map[string]interface{}{"Name": name, "BasePath": basePath}
		var out bytes.Buffer
		must(root.ExecuteTemplate(&out, name, data))
		rendered := strings.ReplaceAll(out.String(), "<no value>", "")
		if strings.TrimSpace(rendered) == "" {
			continue
		}
		if base == "NOTES.txt" {
			fmt.Fprintf(os.Stderr, "%s\n", rendered)
			continue
		}
		fmt.Printf("---\n# Source: %s\n%s\n", name, rendered)
	}
}

func readYaml(file string, into *map[string]interface{}) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return yaml.Unmarshal(data, into)
}

// merge lays `over` onto `base` as Helm merges values files: maps deep, anything else replaced.
func merge(base, over map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for key, value := range base {
		out[key] = value
	}
	for key, value := range over {
		if inner, ok := value.(map[string]interface{}); ok {
			if existing, ok := out[key].(map[string]interface{}); ok {
				out[key] = merge(existing, inner)
				continue
			}
		}
		out[key] = value
	}
	return out
}

func must(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "helm-template:", err)
	os.Exit(1)
}
