/** Wraps a taint fixture's body in the request handler (or `main`) of each language, where its sources are in scope. */
export const py = (body: string) =>
  `from flask import request\nimport os, subprocess, pickle, yaml, requests\n\ndef handler(cursor):\n${body.replace(/^/gm, '    ')}\n`;
export const js = (body: string) =>
  `const cp = require('child_process');\napp.get('/x', (req, res) => {\n${body}\n});\n`;
export const java = (body: string) =>
  `class C {\n  void handle(HttpServletRequest request, HttpServletResponse response, Statement stmt) throws Exception {\n${body}\n  }\n}\n`;
export const php = (body: string) => `<?php\nfunction handle($pdo) {\n${body}\n}\n`;
export const rb = (body: string) =>
  `class UsersController < ApplicationController\n  def show\n${body.replace(/^/gm, '    ')}\n  end\nend\n`;
export const cs = (body: string) =>
  `class UsersController : Controller {\n  public IActionResult Show() {\n${body.replace(/^/gm, '    ')}\n    return Ok();\n  }\n}\n`;
export const cmain = (body: string) =>
  `#include <stdio.h>\n#include <stdlib.h>\n\nint main(int argc, char **argv) {\n${body.replace(/^/gm, '  ')}\n  return 0;\n}\n`;
export const go = (body: string) =>
  `package main\n\nfunc handle(w http.ResponseWriter, r *http.Request, db *sql.DB) {\n${body}\n}\n`;
