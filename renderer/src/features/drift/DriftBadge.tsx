/** The sidebar's drift flag for one server (its interface changed against the pinned baseline). GROUNDWORK STUB. */
export function DriftBadge(_props: { serverId: string }) {
  return null;
}
