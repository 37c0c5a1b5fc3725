// Command argocd-lua runs an Argo CD resource health check (a Lua script) on objects, the way
// Argo CD does: gopher-lua with the base, table, string and math libraries, the object as the
// global `obj`, and the table the script returns read for `status` and `message`. Objects come
// on stdin as a JSON array; one JSON line a object goes out, so a test judges the check by the
// interpreter Argo CD embeds rather than by another Lua.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	lua "github.com/yuin/gopher-lua"
)

type health struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: argocd-lua health.lua < objects.json")
		os.Exit(2)
	}
	script, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("reading the script", err)
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("reading stdin", err)
	}
	var objects []interface{}
	if err := json.Unmarshal(input, &objects); err != nil {
		fail("stdin is not a JSON array", err)
	}
	out := json.NewEncoder(os.Stdout)
	for _, object := range objects {
		result, err := check(string(script), object)
		if err != nil {
			fail("the script failed", err)
		}
		if err := out.Encode(result); err != nil {
			fail("writing", err)
		}
	}
}

func check(script string, object interface{}) (health, error) {
	state := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer state.Close()
	for name, open := range map[string]lua.LGFunction{
		lua.BaseLibName:   lua.OpenBase,
		lua.TabLibName:    lua.OpenTable,
		lua.StringLibName: lua.OpenString,
		lua.MathLibName:   lua.OpenMath,
	} {
		state.Push(state.NewFunction(open))
		state.Push(lua.LString(name))
		state.Call(1, 0)
	}
	state.SetGlobal("obj", toLua(state, object))
	if err := state.DoString(script); err != nil {
		return health{}, err
	}
	returned, ok := state.Get(-1).(*lua.LTable)
	if !ok {
		return health{}, fmt.Errorf("the script returned %s, not a table", state.Get(-1).Type())
	}
	return health{
		Status:  lua.LVAsString(returned.RawGetString("status")),
		Message: lua.LVAsString(returned.RawGetString("message")),
	}, nil
}

// toLua makes JSON values Lua values: objects and arrays tables (arrays from index 1), as Argo CD's
// own conversion does.
func toLua(state *lua.LState, value interface{}) lua.LValue {
	switch v := value.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case []interface{}:
		table := state.NewTable()
		for _, item := range v {
			table.Append(toLua(state, item))
		}
		return table
	case map[string]interface{}:
		table := state.NewTable()
		for key, item := range v {
			table.RawSetString(key, toLua(state, item))
		}
		return table
	}
	return lua.LNil
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "argocd-lua: %s: %v\n", what, err)
	os.Exit(1)
}
