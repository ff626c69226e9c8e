/**
 * Where a folder the demo was made in keeps the plan and the scripted agent's scenario its run
 * plays (inside `.taskloom/`, which git does not see). A folder with both is a demo: Run the Demo
 * runs there again. Relative to the folder; the extension's activation event names the plan's.
 */
export const DEMO_PLAN_PATH = '.taskloom/demo/plan.json';
export const DEMO_SCENARIO_PATH = '.taskloom/demo/scenario.json';
