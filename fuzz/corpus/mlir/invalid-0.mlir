func.func @program_id_axis() {
  %0 = gdn.program_id 3
  return
}
