// RUN: gdn-opt %s -split-input-file --gdn-specialize-entries --verify-diagnostics

// A flag set naming a flag no argument carries, binding a non-integer, or
// not a dictionary is refused at the entry.

// expected-error @+1 {{gdn.specialize names flag 'missing', which no argument carries as gdn.flag}}
func.func @unknown(%flag: i1 {gdn.flag = "present"}) attributes {gdn.specialize = [{missing = true}]} {
  return
}

// -----

// expected-error @+1 {{gdn.specialize binds flag 'scale' to 5.000000e-01 : f32; flags are integer or index arguments bound to integers}}
func.func @not_integer(%s: f32 {gdn.flag = "scale"}) attributes {gdn.specialize = [{scale = 0.5 : f32}]} {
  return
}

// -----

// expected-error @+1 {{gdn.specialize entry 0 is not a dictionary of flags}}
func.func @not_dict(%f: i1 {gdn.flag = "f"}) attributes {gdn.specialize = [1]} {
  return
}
