/** The explorer's pre-filled tabs; graphql/documents.test.ts validates each against the server's schema. */
export const EXPLORER_EXAMPLES: { name: string; query: string; variables?: string }[] = [
  {
    name: 'Viewer',
    query: `# Your account, plan and allowance
query Viewer {
  viewer {
    email
    plan
  }
}
`,
  },
];
