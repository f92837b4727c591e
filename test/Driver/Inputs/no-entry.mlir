func.func @other() {
  return
}
