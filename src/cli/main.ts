console.error('taskloom: the CLI is being assembled');
process.exit(2);
