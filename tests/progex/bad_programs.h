/*
 * Malformed program texts and the exact "line:col: message" stencil_program_parse gives each
 * (STENCIL_EFORMAT), the same messages as kgt's for tests/kgt/bad/prog_*.stencil.
 */
#ifndef BAD_PROGRAMS_H
#define BAD_PROGRAMS_H

#define P2 "program p\n  dims 2\n  field u\n"

static const struct bad_program {
    const char *text, *msg;
} bad_programs[] = {
    {P2 "  update u = u + w\nend\n", "4:18: unknown name 'w'"},
    {P2 "  update u = u\n  update w = 1\nend\n", "5:10: unknown field 'w'"},
    {P2 "  update u = u\n  boundary w all periodic\nend\n", "5:12: unknown field 'w'"},
    {P2 "  update u = u[9,0]\nend\n", "4:16: offset 9 of 'u' is beyond the maximum reach 8"},
    {P2 "  update u = u[0,-9] + u\nend\n", "4:19: offset -9 of 'u' is beyond the maximum reach 8"},
    {P2 "  coef c\n  update u = u * c\n  update c = 2\nend\n",
     "6:10: 'c' is a coefficient field: it is read-only and has no update"},
    {P2 "  update u = u\n  boundary u x- mirror\nend\n",
     "5:14: bad face 'x-' (i-, i+, i for both sides, j.., k.., or all)"},
    {P2 "  update u = u\n  boundary u i- reflect\nend\n",
     "5:17: unknown boundary kind 'reflect' (fixed, periodic, mirror, constant)"},
    {P2 "  update u = u\n  boundary u k- mirror\nend\n",
     "5:14: face 'k-' but the program has 2 dims"},
    {P2 "  update u = u[1,0]\n  boundary u i- periodic\nend\n",
     "5:14: field 'u' is periodic on i- but not on i+"},
    {P2 "  update u = u\n  boundary u i- constant\nend\n", "5:25: 'constant' needs a value"},
    {P2 "  field v\n  update u = u + v[-1,0]\n  update v = v\n  boundary u i mirror\nend\n",
     "5:18: the update of 'u' reads 'v' beyond face i- (mirror for 'u'), where 'v' is fixed"},
    {P2 "  update u = 2 * u - u@prev\nend\n",
     "4:22: 'u' keeps no previous level (declare it 'field u prev')"},
    {P2 "  update u = u[1]\nend\n", "4:17: expected ',', got ']'"},
    {P2 "  update u = u[1,0,0]\nend\n", "4:19: 'u' needs 2 offsets (the program has 2 dims)"},
    {P2 "  field v\n  update v = u + v\nend\n", "6:1: field 'u' has no update"},
    {P2 "  update u = u\n  update u = 2 * u\nend\n",
     "5:10: duplicate update of 'u' (first at line 4)"},
    {P2 "  param u = 1\n  update u = u\nend\n", "4:9: duplicate name 'u'"},
    {P2 "  param a = 2 * 3\n  update u = u\nend\n",
     "4:15: a parameter's default is a number, not an expression"},
    {P2 "  param j = 1\n  update u = u\nend\n",
     "4:9: 'j' is reserved: the cell's index along dimension 1"},
    {P2 "  update u = exp(u)\nend\n",
     "4:14: 'exp' is not available: its results differ between vendors' libraries"},
    {P2 "  update u = u + (u < 1)\nend\n",
     "4:16: '+' needs numbers, not a condition (c ? 1 : 0 is a condition's value)"},
    {P2 "  update u = u && 1 ? 1 : 0\nend\n", "4:16: '&&' needs conditions, not a number"},
    {P2 "  update u = 0 < u < 1 ? 1 : 0\nend\n",
     "4:20: comparisons do not chain: write (a < b) && (b < c)"},
    {P2 "  update u = u > 0 ? 1 : u < 2\nend\n",
     "4:20: the branches of '?' are a number and a condition"},
    {P2 "  update u = u < 1\nend\n",
     "4:14: the update of 'u' is a condition, not a number (use c ? 1 : 0)"},
    {P2 "  update u = u $ 2\nend\n", "4:16: unexpected character '$'"},
    {P2 "  update u = 1.5.2 * u\nend\n", "4:14: bad number '1.5.2'"},
    {P2 "  update u = (u + 1\nend\n", "4:20: expected ')'"},
    {"program p\n  field u\n  dims 2\nend\n", "2:3: 'field' before 'dims'"},
    {"program p\n  dims 2\n  fields u v\nend\n", "3:3: unknown statement 'fields' in a program"},
    {"program p\n  dims 2\nend\n", "3:1: program 'p' has no field"},
    {P2 "  update u = u\n", "1:9: program 'p' is missing 'end'"},
    {P2 "  program q\nend\n", "4:3: 'program' inside program 'p' (missing 'end')"},
};

#undef P2

#endif
