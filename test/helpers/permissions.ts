/** The interface's six permission keys as a test writes them. */
export interface CoreFlags {
  readable: boolean;
  commentable: boolean;
  editable: boolean;
  copyable: boolean;
  exportable: boolean;
  manageable: boolean;
}

/**
 * The six keys with the platform kit's nine, by the table of docs/sharing.md ("Permission keys"), written
 * out here on its own so that a change to src/directory/permissions.ts shows up as a failing test.
 */
export function withKitKeys(core: CoreFlags, extra: { formFillable?: boolean } = {}) {
  return {
    ...core,
    lockable: core.manageable,
    unlockable: core.manageable,
    formFillable: extra.formFillable ?? core.commentable,
    copyablePasteClipboard: core.copyable,
    attachmentCopyable: core.copyable,
    cutable: core.editable && core.copyable,
    attachmentPreviewable: core.readable,
    attachmentDownloadable: core.exportable,
    imageDownloadable: core.exportable,
  };
}
