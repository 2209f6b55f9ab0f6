// Runs the console's offline forecast (static/js/console/forecast.js) under Node for the Python tests:
// reads [{state, bodies, opts}, ...] as JSON on stdin, writes the forecast states as JSON on stdout.
import { readFileSync } from "node:fs";
import { forecast } from "../static/js/console/forecast.js";

const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((c) => forecast(c.state, c.bodies, c.opts))));
