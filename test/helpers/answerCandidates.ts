import { green, write } from './scriptedRun';

// The candidates suites' project: one task, "answer", whose gate passes once answer.txt says ok.

// The gate checks the work still to be done: failing on the base is what it is for.
export const ANSWER_GATE = ['--gate', 'node check.js', '--on-base-failure', 'required'];
export const ANSWER_CHECK = "const fs = require('node:fs'); if (fs.readFileSync('answer.txt', 'utf8').trim() !== 'ok') process.exit(1);\n";

/** The plan of the one task, as `candidates` candidates when given. */
export const answerPlan = (candidates?: number) => ({
  goal: 'answer',
  tasks: [{ id: 'answer', title: 'Answer', description: 'write ok to answer.txt', acceptance: ['answer.txt says ok'], dependsOn: [], ...(candidates ? { candidates } : {}) }],
});

/** Three candidates: 1 fails the gate, 2 and 3 pass (by.txt names which), and the critic picks 3. */
export const THREE_CANDIDATES = {
  tasks: {
    answer: {
      candidates: [{ actor: [write({ 'answer.txt': 'wrong\n' })] }, { actor: [write({ 'answer.txt': 'ok\n', 'by.txt': 'two\n' })] }, { actor: [write({ 'answer.txt': 'ok\n', 'by.txt': 'three\n' })] }],
      compare: [{ output: { pick: 3, reasons: 'candidate 3 names itself plainly' }, delayMs: 0 }],
      critic: [green],
    },
  },
};
