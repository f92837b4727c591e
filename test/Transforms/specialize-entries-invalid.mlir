// RUN: gdn-opt %s -split-input-file --gdn-specialize-entries --verify-diagnostics

// A flag set naming a flag no argument carries, binding a non-integer or an
// i1 to something else than 0 / 1, or not a dictionary; two arguments with
// one flag name; a copy name taken already: refused at the entry.

// expected-error @+1 {{gdn.specialize names flag 'missing', which no argument carries as gdn.flag}}
func.func @unknown(%flag: i1 {gdn.flag = "present"}) attributes {gdn.specialize = [{missing = true}]} {
  return
}

// -----

// expected-error @+1 {{gdn.specialize binds flag 'scale' to 5.000000e-01 : f32; flags are index or i1 arguments bound to integers}}
func.func @not_integer(%s: f32 {gdn.flag = "scale"}) attributes {gdn.specialize = [{scale = 0.5 : f32}]} {
  return
}

// -----

// expected-error @+1 {{gdn.specialize entry 0 is not a dictionary of flags}}
func.func @not_dict(%f: i1 {gdn.flag = "f"}) attributes {gdn.specialize = [1]} {
  return
}

// -----

// expected-error @+1 {{gdn.specialize binds i1 flag 'on' to 2; it takes 0 / 1 (false / true)}}
func.func @wide_bool(%f: i1 {gdn.flag = "on"}) attributes {gdn.specialize = [{on = 2 : i64}]} {
  return
}

// -----

// expected-error @+1 {{two arguments carry gdn.flag 'f'}}
func.func @twice(%a: i1 {gdn.flag = "f"}, %b: i1 {gdn.flag = "f"}) attributes {gdn.specialize = [{f = true}]} {
  return
}

// -----

func.func @taken_s0() {
  return
}
// expected-error @+1 {{gdn.specialize would name a copy @taken_s0, which exists already}}
func.func @taken(%f: i1 {gdn.flag = "f"}) attributes {gdn.specialize = [{f = true}]} {
  return
}
